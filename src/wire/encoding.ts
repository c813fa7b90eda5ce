// Binary protobuf or proto3 JSON: how to read a request body and how to write the answer.

import { WireError } from './wire-error.ts';

export type WireEncoding = 'protobuf' | 'json';

const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

// Media types clients use for binary messages: Google's own, the newer registration, and the generic
// byte stream some HTTP libraries default to.
const PROTOBUF_MEDIA_TYPES = new Set([
  'application/x-protobuf',
  'application/protobuf',
  'application/vnd.google.protobuf',
  'application/octet-stream',
]);

/**
 * What a Content-Type (or `$ct`) says about a body: `json`, `protobuf`, or undefined when absent or
 * not one of ours. `application/json+protobuf` is Google's positional JSPB array format, not proto3 JSON,
 * so it is not taken for JSON.
 */
export function contentTypeEncoding(contentType: string | undefined): WireEncoding | undefined {
  if (contentType === undefined) return undefined;
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (mediaType === 'application/json') return 'json';
  if (PROTOBUF_MEDIA_TYPES.has(mediaType)) return 'protobuf';
  return undefined;
}

/** The media type of an encoding, for Content-Type and Accept headers. */
export function encodingContentType(encoding: WireEncoding): string {
  return encoding === 'json' ? JSON_CONTENT_TYPE : PROTOBUF_CONTENT_TYPE;
}

/** What a request says about the answer it wants. */
export interface EncodingSignals {
  /** `alt` or, failing that, `$alt` from the query string. */
  alt?: string | undefined;
  /** `$ct` from the query string: the type of the `$req` envelope's payload. */
  envelopeContentType?: string | undefined;
  /** The request's Content-Type header. */
  contentType?: string | undefined;
  /** The request's Accept header. */
  accept?: string | undefined;
  /** Whether the request carries `x-goog-api-client`, the header of Google's generated API clients. */
  googleApiClient?: boolean | undefined;
}

/**
 * docs/api.md §3 pitfall 1: browsers send no `alt` and no protobuf Accept header, yet expect binary
 * protobuf; Google's REST clients expect JSON. The first of these that speaks decides:
 * 1. `alt` / `$alt`: `json` → JSON; `proto` or `media` → protobuf; anything else is refused
 *    (parameters after `;`, as in `json;enum-encoding=int`, are ignored);
 * 2. `$ct`, the envelope type Chromium and Firefox send with `$req`: the answer matches it;
 * 3. the request's Content-Type: a JSON body gets JSON, a binary body protobuf;
 * 4. an Accept header that names one of our media types (`*\/*`, which Firefox sends, names none);
 * 5. `x-goog-api-client`: Google's discovery-generated clients (the npm client sends its v5 GETs with no
 *    alt, no Content-Type and no Accept) read the REST default, JSON;
 * 6. otherwise protobuf, which is what browsers expect.
 */
export function chooseResponseEncoding(signals: EncodingSignals): WireEncoding {
  if (signals.alt !== undefined) return altEncoding(signals.alt);
  return (
    contentTypeEncoding(signals.envelopeContentType) ??
    contentTypeEncoding(signals.contentType) ??
    acceptEncoding(signals.accept) ??
    (signals.googleApiClient === true ? 'json' : 'protobuf')
  );
}

function altEncoding(alt: string): WireEncoding {
  const format = (alt.split(';')[0] ?? '').trim().toLowerCase();
  if (format === 'json') return 'json';
  if (format === 'proto' || format === 'media') return 'protobuf';
  const shown = alt.length > 40 ? `${alt.slice(0, 40)}…` : alt;
  throw new WireError('INVALID_ARGUMENT', `unsupported alt=${JSON.stringify(shown)}; use alt=json or alt=proto`);
}

// The first listed media type that is one of ours; quality values are not weighed.
function acceptEncoding(accept: string | undefined): WireEncoding | undefined {
  if (accept === undefined) return undefined;
  for (const range of accept.split(',')) {
    const encoding = contentTypeEncoding(range);
    if (encoding !== undefined) return encoding;
  }
  return undefined;
}
