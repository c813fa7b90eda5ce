// Decoded list requests, remembered. Every client of a list sends the same GET between two versions
// (Firefox's batchGet of its five lists at their versions, the npm client's hashList), and decoding its
// query string (names, base64 versions, size constraints) is most of what answering it costs once the
// answer itself is kept (encoded-answers.ts). A GET without a body is decoded from its URL and the
// headers the answer varies on (answer-caching.ts `Vary`), nothing else, so the same URL and headers
// decode alike. Searches are not kept: their prefixes differ from request to request, and their GET
// takes a shortcut already (wire/protobuf/search-request-fast.ts).

import { BoundedMap } from '../../../store/bounded-map.ts';
import { isSearchUrl } from '../../../wire/protobuf/search-request-fast.ts';
import { RPCS } from '../../../wire/rest/routes.ts';
import {
  type DecodedWireRequest,
  type DecodeWireRequestOptions,
  decodeWireRequest,
  type WireRequest,
} from '../../../wire/rest/server-request.ts';

/** The request headers that decoding reads: the answer's encoding, the method override and the API key. */
const DECODING_HEADERS = ['accept', 'content-type', 'x-goog-api-client', 'x-goog-api-key', 'x-http-method-override'] as const;
/** Requests kept; a newcomer beyond them pushes out the least recently used. */
const MAX_KEPT = 256;
/** Longer URLs are decoded every time: what the table holds stays under a few megabytes. */
const MAX_KEPT_URL_LENGTH = 8192;

function headerValue(value: string | readonly string[] | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.join(', ');
}

/**
 * Decodes requests as {@link decodeWireRequest} does, remembering the GETs of list calls. A remembered
 * request still has its API key checked, every time, before it is returned; requests that fail to decode
 * are never remembered. The decoded requests are shared: nothing may change them.
 */
export class DecodedRequests {
  private readonly kept = new BoundedMap<string, DecodedWireRequest>(MAX_KEPT);

  decode(request: WireRequest, options: DecodeWireRequestOptions): DecodedWireRequest {
    if (
      request.method !== 'GET' ||
      // Searches are never kept, and their plain form is decoded without a table (search-request-fast.ts).
      isSearchUrl(request.url) ||
      request.body.byteLength > 0 ||
      request.url.length > MAX_KEPT_URL_LENGTH ||
      // The key reads header names in lower case, as Node gives them; other spellings are decoded in full.
      (request.headerNamesLowerCase !== true && hasUpperCaseName(request.headers))
    ) {
      return decodeWireRequest(request, options);
    }
    let key = request.url;
    for (const name of DECODING_HEADERS) key += `\n${headerValue(request.headers[name])}`;
    const kept = this.kept.get(key);
    if (kept !== undefined) {
      options.checkApiKey?.(kept.apiKey);
      return kept;
    }
    const decoded = decodeWireRequest(request, options);
    // Only list calls: a search's URL holds what someone browses (urls:search, Web Risk's uris:search),
    // which must not stay in memory, and its prefixes differ from request to request.
    const holds = RPCS[decoded.rpc].answer.holds;
    if (holds === 'list update' || holds === 'list listing') this.kept.keep(key, decoded);
    return decoded;
  }
}

function hasUpperCaseName(headers: WireRequest['headers']): boolean {
  for (const name in headers) if (name !== name.toLowerCase()) return true;
  return false;
}
