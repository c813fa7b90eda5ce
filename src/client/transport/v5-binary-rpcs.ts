import { contentTypeEncoding } from '../../wire/encoding.ts';
import { errorFromStatus } from '../../wire/error-status.ts';
import {
  batchGetHashListsRequest,
  decodeBatchGetHashListsAnswer,
  decodeListHashListsAnswer,
  decodeSearchHashesAnswer,
  type HashListAnswer,
  listHashListsRequest,
  type ListHashListsAnswer,
  type SearchHashesAnswer,
  searchHashesRequest,
} from '../../wire/protobuf/v5-binary.ts';
import { WireError, WireResponseError } from '../../wire/wire-error.ts';
import type { WireResponse } from '../../wire/rest/client-response.ts';
import { bytesOfPrefix32 } from '../../url/hash-string.ts';
import type { Sender } from './rpc.ts';
import type { ServerSettings } from './transport.ts';
import type { V5Rpcs } from './transport-v5.ts';

/**
 * Readers of 200 answers a server sent in JSON although binary protobuf was asked for, as Google's
 * servers may: Node's client reads them with the generated code, loaded only when one comes.
 */
export interface JsonAnswers {
  searchHashes: (response: WireResponse) => Promise<SearchHashesAnswer>;
  batchGetHashLists: (response: WireResponse) => Promise<{ hashLists: readonly HashListAnswer[] }>;
  listHashLists: (response: WireResponse) => Promise<ListHashListsAnswer>;
}

/** How the RPCs are sent, and what reads answers in JSON. */
export interface BinaryRpcOptions {
  /** What carries searches (the requests that reveal what is visited, SB-2), when not `send`: an Oblivious HTTP relay. */
  searchSender?: Sender;
  /** Without it, an answer in JSON is a malformed-body WireResponseError (the browser build carries no JSON reader). */
  json?: JsonAnswers;
}

/** A 200 answer's body read by `decode`, or the WireResponseError the client reports for it. */
function answer<T>(
  response: WireResponse,
  rpc: string,
  decode: (body: Uint8Array) => T,
  readJson: ((response: WireResponse) => Promise<T>) | undefined,
): T | Promise<T> {
  if (response.httpStatus !== 200) throw errorFromStatus(response);
  if (contentTypeEncoding(response.contentType) === 'json') {
    if (readJson !== undefined) return readJson(response);
    throw new WireResponseError('malformed-body', 200, undefined, `the server answered ${rpc} in JSON; binary protobuf was asked for`);
  }
  try {
    return decode(response.body);
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    throw new WireResponseError('malformed-body', response.httpStatus, undefined, error.message);
  }
}

/**
 * v5's client RPCs in binary protobuf without the generated code (wire/protobuf/v5-binary.ts), sent by `send`:
 * what the browser build speaks, a few kilobytes in all, and what Node's client speaks in binary
 * protobuf, which then starts without loading the protobuf runtime.
 */
export function binaryV5Rpcs(settings: ServerSettings, send: Sender, options: BinaryRpcOptions = {}): V5Rpcs {
  const { searchSender = send, json } = options;
  return {
    async batchGetHashLists(lists) {
      const request = batchGetHashListsRequest(settings.serverUrl, settings.apiKey, lists, settings.sizeConstraints);
      return answer(await send(request, settings), 'BatchGetHashLists', decodeBatchGetHashListsAnswer, json?.batchGetHashLists);
    },
    async listHashLists(pageSize, pageToken) {
      const request = listHashListsRequest(settings.serverUrl, settings.apiKey, pageSize, pageToken);
      return answer(await send(request, settings), 'ListHashLists', decodeListHashListsAnswer, json?.listHashLists);
    },
    async searchHashes(prefixes) {
      const request = searchHashesRequest(settings.serverUrl, settings.apiKey, prefixes.map(bytesOfPrefix32));
      return answer(await searchSender(request, settings), 'SearchHashes', decodeSearchHashesAnswer, json?.searchHashes);
    },
  };
}
