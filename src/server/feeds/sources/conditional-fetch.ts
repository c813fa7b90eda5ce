import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

// Conditional GETs (RFC 9110 §13): a feed that has not changed since the last good download costs its
// server one 304 and no body, and this server no parse. The validators are the feed server's words and
// go back to it in request headers, so only well-formed, short ones are kept: a header value Node would
// refuse to send, or one of kilobytes, makes the next request unconditional rather than failing.

/** What the last good answer said about its version, sent back to ask "only if changed". */
export interface FeedValidators {
  /** The `ETag` as received, strong or weak (`W/"…"`). */
  etag?: string;
  /** The `Last-Modified` date as received (an HTTP date). */
  lastModified?: string;
}

/** Longer validators are no version tag a feed server needs; they are dropped. */
const MAX_VALIDATOR_LENGTH = 256;
/** RFC 9110 §8.8.3: `[W/]"` etagc* `"`, etagc being visible ASCII but `"` (obs-text is not kept). */
const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e]*"$/;
/** An IMF-fixdate, or the obsolete forms, as printable ASCII; Date.parse decides whether it is a date. */
const HTTP_DATE = /^[\x20-\x7e]+$/;

/** The validators of an answer's headers: each only when well-formed. */
export function validatorsOf(headers: IncomingHttpHeaders): FeedValidators {
  const validators: FeedValidators = {};
  const etag = headers.etag?.trim();
  if (etag !== undefined && etag.length <= MAX_VALIDATOR_LENGTH && ENTITY_TAG.test(etag)) validators.etag = etag;
  const lastModified = headers['last-modified']?.trim();
  if (
    lastModified !== undefined &&
    lastModified.length <= MAX_VALIDATOR_LENGTH &&
    HTTP_DATE.test(lastModified) &&
    !Number.isNaN(Date.parse(lastModified))
  )
    validators.lastModified = lastModified;
  return validators;
}

/** Whether there is anything to ask a conditional GET with. */
export function hasValidators(validators: FeedValidators | undefined): validators is FeedValidators {
  return validators?.etag !== undefined || validators?.lastModified !== undefined;
}

/**
 * The request headers of a conditional GET. Both validators are sent when both are known: a server
 * gives If-None-Match precedence (RFC 9110 §13.2.2), and one that only knows dates still gets one.
 */
export function conditionalHeaders(validators: FeedValidators | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  if (validators?.etag !== undefined) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified !== undefined) headers['if-modified-since'] = validators.lastModified;
  return headers;
}

/**
 * The validators to keep after a 304: RFC 9110 §15.4.5 lets a 304 carry the current ones, which replace
 * those sent; a 304 without them leaves the known ones in place.
 */
export function refreshedValidators(sent: FeedValidators, answered: FeedValidators): FeedValidators {
  return { ...sent, ...answered };
}
