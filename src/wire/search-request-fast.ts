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

/** The value of a character of the URL-safe base64 alphabet, which PREFIX_PARAMETER has checked. */
function sextet(code: number): number {
  if (code >= 0x61) return code - 0x61 + 26; // a-z
  if (code >= 0x41) return code === 0x5f ? 63 : code - 0x41; // _ (0x5f), A-Z
  return code === 0x2d ? 62 : code - 0x30 + 52; // -, 0-9
}

/**
 * The 4 bytes of 6 base64 characters (36 bits: the last 4 are not part of any byte and are ignored, as
 * Buffer's decoder ignores them), without a Buffer from the pool for every request.
 */
function prefixBytes(text: string): Uint8Array {
  const high =
    (sextet(text.charCodeAt(0)) << 18) |
    (sextet(text.charCodeAt(1)) << 12) |
    (sextet(text.charCodeAt(2)) << 6) |
    sextet(text.charCodeAt(3));
  const bytes = new Uint8Array(4);
  bytes[0] = high >>> 16;
  bytes[1] = (high >>> 8) & 0xff;
  bytes[2] = high & 0xff;
  bytes[3] = (sextet(text.charCodeAt(4)) << 2) | (sextet(text.charCodeAt(5)) >>> 4);
  return bytes;
}

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
      hashPrefixes.push(prefixBytes(prefix[1]!));
      continue;
    }
    const key = KEY_PARAMETER.exec(segment);
    if (key === null || apiKey !== undefined) return undefined;
    apiKey = key[1];
  }
  if (hashPrefixes.length === 0 || hashPrefixes.length > MAX_PLAIN_PREFIXES) return undefined;
  return { apiVersion, request: { $typeName: 'google.security.safebrowsing.v5.SearchHashesRequest', hashPrefixes, filter: '' }, apiKey };
}
