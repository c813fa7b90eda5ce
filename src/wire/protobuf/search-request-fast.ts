// The request browsers send most, `GET /v5/hashes:search?key=K&hashPrefixes=…`, read without the
// general machinery of server-request.ts (query parsing into objects, reflection over the schema, route
// table). Anything but the plain form (escapes other than padding, other parameters, a body, a method
// override, a `$req`) is left to the general path, which also words every error; where this path
// answers, it answers exactly as that one would (test/wire/protobuf/search-request-fast.test.ts).

import type { SearchHashesRequest } from '../../proto/v5.ts';
import { decodeBase64Into } from '../base64.ts';
import type { ApiVersion } from '../rest/routes.ts';

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
// A 4-byte prefix is 6 characters of either base64 alphabet that a query string leaves unescaped,
// padded (percent-escaped or not) or unpadded; an API key is of the characters Google's keys use.
const PREFIX_NAME = 'hashPrefixes=';
const PREFIX_CHARACTERS = 6;
const PREFIX_BYTES = 4;
const KEY_NAME = 'key=';
/** More prefixes than this go the general way, which refuses them with its message. */
const MAX_PLAIN_PREFIXES = 1000;

/** True for the characters of a key and of a plain prefix: A–Z, a–z, 0–9, `-` and `_`. */
function isPlainCharacter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f
  );
}

/** True when `text` holds only plain characters from `from` up to `to`. */
function allPlain(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isPlainCharacter(text.charCodeAt(i))) return false;
  return true;
}

/** True when `text` from `from` to `to` is a plain prefix: 6 characters, then nothing, `==` or `%3D%3D`. */
function isPlainPrefix(text: string, from: number, to: number): boolean {
  const padding = to - from - PREFIX_CHARACTERS;
  const end = from + PREFIX_CHARACTERS;
  if (padding !== 0 && !(padding === 2 && text.startsWith('==', end)) && !(padding === 6 && text.startsWith('%3D%3D', end))) return false;
  return allPlain(text, from, end);
}

/** True when `url` is a search's path and query: a URL that may be in the plain form. */
export function isSearchUrl(url: string): boolean {
  for (const [path] of PATHS) if (url.startsWith(path)) return true;
  return false;
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
  // One pass over the parameters, `&` by `&`: each a prefix, or the key once; anything else is not plain.
  for (let at = queryStart; ;) {
    const next = url.indexOf('&', at);
    const end = next < 0 ? url.length : next;
    const prefixAt = at + PREFIX_NAME.length;
    if (url.startsWith(PREFIX_NAME, at) && isPlainPrefix(url, prefixAt, end)) {
      // Read in place, without a substring or a Buffer from the pool for every request; plain, so base64.
      const prefix = new Uint8Array(PREFIX_BYTES);
      decodeBase64Into(url, prefixAt, prefixAt + PREFIX_CHARACTERS, prefix);
      hashPrefixes.push(prefix);
    } else if (url.startsWith(KEY_NAME, at) && apiKey === undefined && allPlain(url, at + KEY_NAME.length, end)) {
      apiKey = url.slice(at + KEY_NAME.length, end);
    } else {
      return undefined;
    }
    if (next < 0) break;
    at = next + 1;
  }
  if (hashPrefixes.length === 0 || hashPrefixes.length > MAX_PLAIN_PREFIXES) return undefined;
  return { apiVersion, request: { $typeName: 'google.security.safebrowsing.v5.SearchHashesRequest', hashPrefixes, filter: '' }, apiKey };
}
