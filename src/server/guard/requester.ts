// Who a request comes from, as the budgets that cannot be stepped around key on it: an API key the
// server accepts, or else the client's address (an IPv6 client's /64). Never a header a client chooses
// freely: a User-Agent is whatever it writes, and keys it makes up count for nothing.

import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { apiKeyOf } from '../../wire/server-request.ts';
import { addressKey, clientAddress, type TrustedProxies } from './client-address.ts';
import { INNER_REQUEST_ADDRESS, OUTER_FORWARDED_FOR_HEADER, OUTER_PEER_HEADER } from '../ohttp/gateway-routes.ts';

export interface Requester {
  /** `key:` and a digest of the key, or `address:` and the address (IPv6 by /64). */
  id: string;
  /** True for a valid API key: keyed clients have larger shares and come first. */
  keyed: boolean;
}

/** The API key a request carries if the server accepts it; undefined otherwise (none, or made up). */
export function acceptedKey(request: { url: string; headers: IncomingHttpHeaders }, apiKeys: ReadonlySet<string>): string | undefined {
  const key = apiKeys.size === 0 ? undefined : apiKeyOf(request.url, request.headers);
  return key !== undefined && apiKeys.has(key) ? key : undefined;
}

/** The requester of a request with this URL and headers from the socket peer `peer`. */
export function requesterOf(
  request: { url: string; headers: IncomingHttpHeaders; peer: string },
  trusted: TrustedProxies,
  apiKeys: ReadonlySet<string>,
): Requester {
  const key = acceptedKey(request, apiKeys);
  if (key !== undefined) return { id: keyId(key), keyed: true };
  const { peer, forwardedFor } = outerRequest(request);
  return { id: `address:${addressKey(clientAddress(peer, forwardedFor, trusted))}`, keyed: false };
}

/**
 * The peer and X-Forwarded-For that name the client: the request's own, or for a request an OHTTP
 * gateway serves from inside an encapsulation, those of the encapsulating request (through a trusted
 * relay, the relay's address: its users share its share).
 */
function outerRequest(request: { headers: IncomingHttpHeaders; peer: string }): { peer: string; forwardedFor: string | undefined } {
  if (request.peer !== INNER_REQUEST_ADDRESS) return { peer: request.peer, forwardedFor: headerValue(request.headers['x-forwarded-for']) };
  return {
    peer: headerValue(request.headers[OUTER_PEER_HEADER]) ?? '',
    forwardedFor: headerValue(request.headers[OUTER_FORWARDED_FOR_HEADER]),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.join(',');
}

/** A key as budgets remember it: a digest, so that no key is kept in memory or Redis as it is. */
export function keyId(key: string): string {
  return `key:${hash('sha256', key, 'base64url').slice(0, 22)}`;
}
