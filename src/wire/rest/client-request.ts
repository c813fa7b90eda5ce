// Client side: the HTTP request that calls an RPC on a Safe Browsing server (Google's or ours), built
// from the route table so that client and server agree on every path. v5 requests are GETs whose
// message travels in the query string (SB-13: prefixes as base64url); v4 requests are POSTs with a
// binary or JSON body, as the Go reference client and the npm client send them (docs/api.md §3).

import type { DescMessage } from '@bufbuild/protobuf';
import type { GetHashListRequest } from '../../proto/v5.ts';
import type { WireEncoding } from '../encoding.ts';
import { encodingContentType } from '../encoding.ts';
import { encodePayload } from '../payload.ts';
import type { QueryParameter } from './query-string.ts';
import { formatQueryString } from './query-string.ts';
import type { AnyRpc, RpcId, RpcRequest } from './routes.ts';
import { RPCS, rpcPath } from './routes.ts';
import { queryParametersOf } from './transcoding.ts';

/** An HTTP request ready for fetch() or any other HTTP client. */
export interface OutgoingRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** Present for POST only. */
  body: Uint8Array | undefined;
}

export interface OutgoingRequestOptions {
  /** Sent as `key=`, as Google expects. */
  apiKey?: string | undefined;
  /** Path prefix of v5 RPCs; v4 RPCs always use /v4/, Web Risk's /v1/. Default `v5`. */
  apiVersion?: 'v5' | 'v5alpha1' | undefined;
  /**
   * The encoding asked for with `alt` (and of a v4 body). Default protobuf: Google's REST default is
   * JSON (docs/api.md §1), so the request always says which it wants.
   */
  encoding?: WireEncoding | undefined;
}

/**
 * Builds the request for an RPC. `serverUrl` is the server's origin, optionally with a path prefix
 * (`https://safebrowsing.googleapis.com`, `http://127.0.0.1:8080`). A v5 request message goes into the
 * query string (repeated fields as repeated parameters, positional empty `version` entries kept, the
 * GetHashList name in the path); a v4 one into the body.
 */
export function buildWireRequest<R extends RpcId>(
  serverUrl: string,
  rpcId: R,
  request: RpcRequest<R>,
  options: OutgoingRequestOptions = {},
): OutgoingRequest {
  const rpc: AnyRpc = RPCS[rpcId];
  const schema: DescMessage = rpc.requestSchema;
  const encoding = options.encoding ?? 'protobuf';
  const headers: Record<string, string> = { accept: encodingContentType(encoding) };
  const query: QueryParameter[] = [];
  if (options.apiKey !== undefined) query.push({ name: 'key', value: options.apiKey });
  query.push({ name: 'alt', value: encoding === 'json' ? 'json' : 'proto' });

  let listName: string | undefined;
  let body: Uint8Array | undefined;
  if (rpc.httpMethod === 'GET') {
    let fields = queryParametersOf(schema, request);
    if (rpc.id === 'GetHashList') {
      listName = (request as GetHashListRequest).name;
      fields = fields.filter((field) => field.name !== 'name');
    }
    query.push(...fields);
  } else {
    const payload = encodePayload(schema, request, encoding);
    headers['content-type'] = payload.contentType;
    body = payload.body;
  }
  const apiVersion = rpc.protocol === 'v4' ? 'v4' : rpc.protocol === 'webrisk' ? 'v1' : (options.apiVersion ?? 'v5');
  const url = `${serverUrl.replace(/\/+$/, '')}${rpcPath(rpc, apiVersion, listName)}?${formatQueryString(query)}`;
  return { method: rpc.httpMethod, url, headers, body };
}
