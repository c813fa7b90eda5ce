import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsRequestSchema, ListHashListsRequestSchema, SearchHashesRequestSchema } from '../../proto/v5.ts';
import { bytesOfPrefix32 } from '../../url/hash-string.ts';
import { callRpc, type Sender } from './rpc.ts';
import type { ServerSettings } from './transport.ts';
import type { V5Rpcs } from './transport-v5.ts';

/**
 * v5's client RPCs through the generated code, in either encoding, sent by `send`; searches (the
 * requests that reveal what is visited, SB-2) by `searchSender` when they go another way, e.g. through
 * an Oblivious HTTP relay.
 */
export function protobufV5Rpcs(settings: ServerSettings, send: Sender, searchSender: Sender = send): V5Rpcs {
  return {
    batchGetHashLists: (lists) =>
      callRpc(
        settings,
        'BatchGetHashLists',
        create(BatchGetHashListsRequestSchema, {
          names: lists.map((l) => l.name),
          version: lists.map((l) => l.version),
          sizeConstraints: settings.sizeConstraints,
        }),
        send,
      ),
    listHashLists: async (pageSize, pageToken) => {
      const response = await callRpc(settings, 'ListHashLists', create(ListHashListsRequestSchema, { pageSize, pageToken }), send);
      return { names: response.hashLists.map((list) => list.name), nextPageToken: response.nextPageToken };
    },
    searchHashes: (prefixes) =>
      callRpc(settings, 'SearchHashes', create(SearchHashesRequestSchema, { hashPrefixes: prefixes.map(bytesOfPrefix32) }), searchSender),
  };
}
