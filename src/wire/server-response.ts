// Server side: the answer message of an RPC, encoded the way its request asked for
// (DecodedWireRequest.responseEncoding).

import type { DescMessage } from '@bufbuild/protobuf';
import type { WireEncoding } from './encoding.ts';
import type { EncodedPayload } from './payload.ts';
import { encodePayload } from './payload.ts';
import type { RpcId, RpcResponse } from './routes.ts';
import { RPCS } from './routes.ts';

/** The Content-Type and body answering `rpcId` with `response`. */
export function encodeWireResponse<R extends RpcId>(rpcId: R, response: RpcResponse<R>, encoding: WireEncoding): EncodedPayload {
  const schema: DescMessage = RPCS[rpcId].responseSchema;
  return encodePayload(schema, response, encoding);
}
