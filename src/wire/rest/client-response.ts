// Client side: a server's HTTP answer to the response message of the RPC that was called, in whichever
// encoding the server chose, or a WireResponseError saying what went wrong.

import type { DescMessage } from '@bufbuild/protobuf';
import { type WireEncoding, contentTypeEncoding } from '../encoding.ts';
import { decodePayload } from '../payload.ts';
import { type RpcId, type RpcResponse, RPCS } from './routes.ts';
import { WireError, WireResponseError } from '../wire-error.ts';
import { errorFromStatus } from '../error-status.ts';

/** An HTTP answer as the client received it. */
export interface WireResponse {
  httpStatus: number;
  contentType: string | undefined;
  body: Uint8Array;
  /** Cache-Control max-age, when the server sent one. */
  maxAgeSeconds?: number | undefined;
  /** The `Retry-After` header as sent, when there was one (it matters with a 429 or 503). */
  retryAfter?: string | undefined;
}

/**
 * Decodes the answer to `rpcId`. The Content-Type decides the encoding; without a known one, the
 * encoding the request asked for is assumed.
 */
export function decodeWireResponse<R extends RpcId>(rpcId: R, response: WireResponse, requested: WireEncoding): RpcResponse<R> {
  if (response.httpStatus !== 200) throw errorFromStatus(response);
  const schema: DescMessage = RPCS[rpcId].responseSchema;
  const encoding = contentTypeEncoding(response.contentType) ?? requested;
  try {
    return decodePayload(schema, response.body, encoding, `the server's ${rpcId} response`) as RpcResponse<R>;
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    throw new WireResponseError('malformed-body', response.httpStatus, undefined, error.message);
  }
}
