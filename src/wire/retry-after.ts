// `Retry-After` (RFC 9110 §10.2.3) on a server's refusal: how long it asks the client to stay away.

import { WireResponseError } from './wire-error.ts';

/** The statuses whose `Retry-After` says when the server will serve again: too many requests, and unavailable. */
const REFUSALS_WITH_RETRY_AFTER = new Set([429, 503]);

/**
 * The delay a `Retry-After` value asks for, in ms from `now` (the client's clock): delay-seconds, or an
 * HTTP-date in either form that names GMT (IMF-fixdate, the obsolete RFC 850 form; a date past counts as 0). Undefined for a value that is neither. Unbounded: the caller
 * decides how much of it to obey.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its zone, GMT: Date.parse alone would also take "2024" or "tomorrow 3pm" in local time.
  if (!/ GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The delay a refusal asks for: for a WireResponseError of status 429 or 503 that carries a readable
 * `Retry-After`, its delay in ms from `now`; undefined for any other error, which is a plain failure.
 */
export function retryAfterOfRefusal(error: unknown, now: number): number | undefined {
  if (!(error instanceof WireResponseError) || !REFUSALS_WITH_RETRY_AFTER.has(error.httpStatus)) return undefined;
  return parseRetryAfter(error.retryAfter, now);
}
