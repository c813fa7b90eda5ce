// Server side: the answer message of an RPC, encoded the way its request asked for
// (DecodedWireRequest.responseEncoding).

import type { DescMessage } from '@bufbuild/protobuf';
import type { SearchHashesResponse } from '../../proto/v5.ts';
import type { WireEncoding } from '../encoding.ts';
import { encodingContentType } from '../encoding.ts';
import type { EncodedPayload } from '../payload.ts';
import { encodePayload } from '../payload.ts';
import type { RpcId, RpcResponse } from './routes.ts';
import { RPCS } from './routes.ts';
import { encodeSearchHashesResponse } from '../protobuf/search-hashes-binary.ts';

/** The Content-Type and body answering `rpcId` with `response`; `enumsAsNumbers` as the request asked (DecodedWireRequest). */
export function encodeWireResponse<R extends RpcId>(
  rpcId: R,
  response: RpcResponse<R>,
  encoding: WireEncoding,
  enumsAsNumbers = false,
): EncodedPayload {
  if (rpcId === 'SearchHashes' && encoding === 'protobuf') {
    const search = response as SearchHashesResponse;
    // Browsers' most frequent answer takes the direct encoder; one with unknown fields keeps the general one.
    if (search.$unknown === undefined) return { contentType: encodingContentType(encoding), body: encodeSearchHashesResponse(search) };
  }
  const schema: DescMessage = RPCS[rpcId].responseSchema;
  return encodePayload(schema, response, encoding, enumsAsNumbers);
}
