// Who a request comes from, as the budgets that cannot be stepped around key on it: an API key the
// server accepts, or else the client's address (an IPv6 client's /64). Never a header a client chooses
// freely: a User-Agent is whatever it writes, and keys it makes up count for nothing.

import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { apiKeyOf } from '../../wire/server-request.ts';
import { addressKey, clientAddress, type TrustedProxies } from './client-address.ts';

export interface Requester {
  /** `key:` and a digest of the key, or `address:` and the address (IPv6 by /64). */
  id: string;
  /** True for a valid API key: keyed clients have larger shares and come first. */
  keyed: boolean;
}

/** The requester of a request with this URL and headers from the socket peer `peer`. */
export function requesterOf(
  request: { url: string; headers: IncomingHttpHeaders; peer: string },
  trusted: TrustedProxies,
  apiKeys: ReadonlySet<string>,
): Requester {
  const key = apiKeys.size === 0 ? undefined : apiKeyOf(request.url, request.headers);
  if (key !== undefined && apiKeys.has(key)) return { id: keyId(key), keyed: true };
  return { id: `address:${addressKey(clientAddress(request.peer, request.headers['x-forwarded-for'], trusted))}`, keyed: false };
}

/** A key as budgets remember it: a digest, so that no key is kept in memory or Redis as it is. */
export function keyId(key: string): string {
  return `key:${hash('sha256', key, 'base64url').slice(0, 22)}`;
}
