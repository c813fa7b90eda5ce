// One RPC over HTTP, what both protocols' transports are made of: the wire layer builds the request and
// reads the answer, a sender carries it (directly, or through an Oblivious HTTP relay).

import { buildWireRequest, type OutgoingRequest } from '../../wire/rest/client-request.ts';
import { decodeWireResponse, type WireResponse } from '../../wire/rest/client-response.ts';
import type { RpcId, RpcRequest, RpcResponse } from '../../wire/rest/routes.ts';
import type { HttpSettings } from './http.ts';
import type { ServerSettings } from './transport.ts';

/** Calls one RPC over HTTP and decodes its answer; rejects with TransportError or WireResponseError. */
export async function callRpc<R extends RpcId>(
  settings: ServerSettings,
  rpc: R,
  request: RpcRequest<R>,
  send: Sender,
): Promise<RpcResponse<R>> {
  const outgoing = buildWireRequest(settings.serverUrl, rpc, request, { apiKey: settings.apiKey, encoding: settings.encoding });
  const response = await send(outgoing, settings);
  return decodeWireResponse(rpc, response, settings.encoding);
}

/** How a request reaches the server: directly, or through an Oblivious HTTP relay. */
export type Sender = (request: OutgoingRequest, settings: HttpSettings) => Promise<WireResponse>;
