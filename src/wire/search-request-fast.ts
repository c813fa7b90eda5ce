// The request browsers send most, `GET /v5/hashes:search?key=K&hashPrefixes=…`, read without the
// general machinery of server-request.ts (query parsing into objects, reflection over the schema, route
// table). Anything but the plain form (escapes other than padding, other parameters, a body, a method
// override, a `$req`) is left to the general path, which also words every error; where this path
// answers, it answers exactly as that one would (test/wire/search-request-fast.test.ts).

import type { SearchHashesRequest } from '../proto/v5.ts';
import type { ApiVersion } from './routes.ts';

/** What the fast path reads: the request's path and query, and nothing that could change the RPC. */
export interface PlainSearch {
  apiVersion: ApiVersion;
  request: SearchHashesRequest;
  apiKey: string | undefined;
}

const PATHS: readonly (readonly [string, ApiVersion])[] = [
  ['/v5/hashes:search?', 'v5'],
  ['/v5alpha1/hashes:search?', 'v5alpha1'],
];
// A 4-byte prefix in either base64 alphabet without characters a query string escapes, padded
// (percent-escaped or not) or unpadded; an API key of the characters Google's keys use.
const PREFIX_PARAMETER = /^hashPrefixes=([A-Za-z0-9_-]{6})(?:%3D%3D|==)?$/;
const KEY_PARAMETER = /^key=([A-Za-z0-9_-]*)$/;
/** More prefixes than this go the general way, which refuses them with its message. */
const MAX_PLAIN_PREFIXES = 1000;

/** The search of a plain GET URL, or undefined when the URL is not in the plain form. */
export function readPlainSearch(url: string): PlainSearch | undefined {
  let apiVersion: ApiVersion | undefined;
  let queryStart = 0;
  for (const [path, version] of PATHS) {
    if (url.startsWith(path)) {
      apiVersion = version;
      queryStart = path.length;
    }
  }
  if (apiVersion === undefined) return undefined;
  const hashPrefixes: Uint8Array[] = [];
  let apiKey: string | undefined;
  for (const segment of url.slice(queryStart).split('&')) {
    const prefix = PREFIX_PARAMETER.exec(segment);
    if (prefix !== null) {
      hashPrefixes.push(new Uint8Array(Buffer.from(prefix[1]!, 'base64')));
      continue;
    }
    const key = KEY_PARAMETER.exec(segment);
    if (key === null || apiKey !== undefined) return undefined;
    apiKey = key[1];
  }
  if (hashPrefixes.length === 0 || hashPrefixes.length > MAX_PLAIN_PREFIXES) return undefined;
  return { apiVersion, request: { $typeName: 'google.security.safebrowsing.v5.SearchHashesRequest', hashPrefixes, filter: '' }, apiKey };
}
