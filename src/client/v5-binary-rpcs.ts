import { contentTypeEncoding } from '../wire/encoding.ts';
import { errorFromStatus } from '../wire/error-status.ts';
import {
  batchGetHashListsRequest,
  decodeBatchGetHashListsAnswer,
  decodeSearchHashesAnswer,
  searchHashesRequest,
} from '../wire/v5-binary.ts';
import { WireError, WireResponseError } from '../wire/wire-error.ts';
import type { WireResponse } from '../wire/client-response.ts';
import { prefixBytes, type Sender } from './rpc.ts';
import type { ServerSettings } from './transport.ts';
import type { V5Rpcs } from './transport-v5.ts';

/** A 200 answer's body read by `decode`, or the WireResponseError the client reports for it. */
function answer<T>(response: WireResponse, rpc: string, decode: (body: Uint8Array) => T): T {
  if (response.httpStatus !== 200) throw errorFromStatus(response);
  if (contentTypeEncoding(response.contentType) === 'json')
    throw new WireResponseError('malformed-body', 200, undefined, `the server answered ${rpc} in JSON; binary protobuf was asked for`);
  try {
    return decode(response.body);
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    throw new WireResponseError('malformed-body', response.httpStatus, undefined, error.message);
  }
}

/**
 * v5's client RPCs in binary protobuf without the generated code (wire/v5-binary.ts), sent by `send`,
 * searches by `searchSender` (an Oblivious HTTP relay, SB-2) when given: what the browser build speaks,
 * a few kilobytes in all.
 */
export function binaryV5Rpcs(settings: ServerSettings, send: Sender, searchSender: Sender = send): V5Rpcs {
  return {
    async batchGetHashLists(lists) {
      const request = batchGetHashListsRequest(settings.serverUrl, settings.apiKey, lists, settings.sizeConstraints);
      return answer(await send(request, settings), 'BatchGetHashLists', decodeBatchGetHashListsAnswer);
    },
    async searchHashes(prefixes) {
      const request = searchHashesRequest(settings.serverUrl, settings.apiKey, prefixes.map(prefixBytes));
      return answer(await searchSender(request, settings), 'SearchHashes', decodeSearchHashesAnswer);
    },
  };
}
