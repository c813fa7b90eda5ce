// Who a request comes from, as the budgets that cannot be stepped around key on it: an API key the
// server accepts; the users of a trusted Oblivious HTTP relay together (the gateway cannot tell them
// apart, by design); or else the client's address (an IPv6 client's /64) within its neighbourhood (its
// /56). Never a header a client chooses freely: a User-Agent is whatever it writes, and keys it makes
// up count for nothing.

import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { apiKeyOf } from '../../wire/rest/server-request.ts';
import { addressKey, clientAddress, neighbourhoodKey, TrustedProxies } from './client-address.ts';
import { INNER_REQUEST_ADDRESS, OUTER_FORWARDED_FOR_HEADER, OUTER_PEER_HEADER } from '../inner-request.ts';

export interface Requester {
  /** `key:` and a digest of the key, `relay:` and a trusted relay's address, or `address:` and the address (IPv6 by /64). */
  id: string;
  /** True for a valid API key: keyed clients have larger shares and come first. */
  keyed: boolean;
  /** True for an inner request of the OHTTP gateway that came through a trusted relay: one of its many users. */
  relayed?: boolean;
  /** An address's neighbourhood (IPv6: its /56; IPv4: the address), the second tier of its shares. */
  neighbourhood?: string;
}

const NO_RELAYS = new TrustedProxies([]);

/** The API key a request carries if the server accepts it; undefined otherwise (none, or made up). */
export function acceptedKey(request: { url: string; headers: IncomingHttpHeaders }, apiKeys: ReadonlySet<string>): string | undefined {
  const key = apiKeys.size === 0 ? undefined : apiKeyOf(request.url, request.headers);
  return key !== undefined && apiKeys.has(key) ? key : undefined;
}

/** The requester of a request with this URL and headers from the socket peer `peer`; `relays`, the trusted OHTTP relays. */
export function requesterOf(
  request: { url: string; headers: IncomingHttpHeaders; peer: string },
  trusted: TrustedProxies,
  apiKeys: ReadonlySet<string>,
  relays: TrustedProxies = NO_RELAYS,
): Requester {
  const key = acceptedKey(request, apiKeys);
  if (key !== undefined) return { id: keyId(key), keyed: true };
  const { peer, forwardedFor } = outerRequest(request);
  const address = clientAddress(peer, forwardedFor, trusted);
  // Only an inner request has its outer peer to go by: a relay's own requests, if any, are an address's.
  if (request.peer === INNER_REQUEST_ADDRESS && relays.has(address)) return { id: `relay:${address}`, keyed: false, relayed: true };
  return { id: `address:${addressKey(address)}`, keyed: false, neighbourhood: neighbourhoodKey(address) };
}

/**
 * The peer and X-Forwarded-For that name the client: the request's own, or for a request an OHTTP
 * gateway serves from inside an encapsulation, those of the encapsulating request (through a relay,
 * the relay's address: a trusted relay's users share its pool, requesterOf).
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
