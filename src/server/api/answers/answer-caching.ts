// Who may keep an API answer, and for how long (RFC 9111), and which request headers besides the URL it
// depends on. docs/operations.md "Edge caching" is the operator's view.
//
// - List answers are the same for every client that sends the same request: `public`, for
//   `listCacheSeconds` (SB-11), so that an edge cache answers most update traffic; GET forms also carry
//   a strong ETag (list-etag.ts) that caches revalidate with.
// - Search answers are the same for everyone too, but the prefixes or URLs they answer tell what someone
//   browses: a shared cache would keep that in its store and logs, and its hits (an `Age`, a faster
//   answer) would tell the next person who asks that someone else looked these up lately. So `private`:
//   only the asker's own cache may keep one, for the cache duration the answer itself carries (SB-8).
// - Anything else, and every error (replies.ts), is not kept at all.

import type { Message } from '@bufbuild/protobuf';
import type { Duration } from '@bufbuild/protobuf/wkt';
import type { FindFullHashesResponse, FindThreatMatchesResponse } from '../../../proto/v4.ts';
import type { SearchHashesResponse, SearchUrlsResponse } from '../../../proto/v5.ts';
import { durationToMs } from '../../../wire/duration.ts';
import { type RpcId, RPCS } from '../../../wire/rest/routes.ts';
import type { ApiSettings } from '../settings.ts';

/**
 * Request headers an API answer depends on besides its URL: those the encoding is chosen by (`alt` and
 * `$alt` are in the URL; wire/encoding.ts), the override that turns a GET into a v4 POST, and the API key
 * when it comes as a header, so that a cache never hands an answer to a request without a valid key.
 */
const API_VARY = 'Accept, Content-Type, X-Goog-Api-Client, X-Goog-Api-Key, X-HTTP-Method-Override';

/** The Vary of an API answer: API_VARY after what the reply already varies on (CORS adds `Origin`). */
export function varyOf(already: number | string | string[] | undefined): string {
  const before = Array.isArray(already) ? already.join(', ') : already === undefined ? '' : String(already);
  return before === '' ? API_VARY : `${before}, ${API_VARY}`;
}

/** A day: no cache keeps a search answer longer (SB-8), whatever an upstream says. */
const MAX_SEARCH_CACHE_MS = 24 * 60 * 60_000;

/** The shortest of these lifetimes in whole seconds (rounded down: an HTTP cache must not outlive the answer's own). */
function shortestSeconds(durations: readonly (Duration | undefined)[], fallbackMs: number): number {
  let shortest = Number.POSITIVE_INFINITY;
  for (const duration of durations) {
    const ms = durationToMs(duration, MAX_SEARCH_CACHE_MS);
    if (ms !== undefined) shortest = Math.min(shortest, ms);
  }
  return Math.floor((Number.isFinite(shortest) ? shortest : Math.min(fallbackMs, MAX_SEARCH_CACHE_MS)) / 1000);
}

/** How long the answer to a search may be kept: the cache duration it carries (v4: the shortest of them). */
function searchSeconds(rpc: RpcId, answer: Message, settings: ApiSettings): number | undefined {
  switch (rpc) {
    case 'SearchHashes':
      return shortestSeconds([(answer as SearchHashesResponse).cacheDuration], settings.negativeCacheDurationMs);
    case 'SearchUrls':
      return shortestSeconds([(answer as SearchUrlsResponse).cacheDuration], settings.negativeCacheDurationMs);
    case 'FindFullHashes': {
      const found = answer as FindFullHashesResponse;
      return shortestSeconds([found.negativeCacheDuration, ...found.matches.map((m) => m.cacheDuration)], settings.negativeCacheDurationMs);
    }
    case 'FindThreatMatches':
      return shortestSeconds(
        (answer as FindThreatMatchesResponse).matches.map((m) => m.cacheDuration),
        settings.negativeCacheDurationMs,
      );
    default:
      return undefined;
  }
}

/**
 * Web Risk's diffs say when to ask next as a moment (`recommended_next_diff`), not as a wait: an answer
 * kept is right only for a while. Its moment is worked out from the start of the minute it was issued in
 * (answerIssuedAt), its tag changes with the minute (list-etag.ts), and caches keep it a minute at most,
 * so that no copy names a moment more than two minutes before the one a fresh answer would.
 */
const TIMED_ANSWER_STEP_MS = 60_000;

/** The start of the step `now` falls in: when an answer that names a moment was issued, for every copy of it. */
export function answerIssuedAt(now: number): number {
  return Math.floor(now / TIMED_ANSWER_STEP_MS) * TIMED_ANSWER_STEP_MS;
}

/** True for the RPCs whose list answers name a moment (TIMED_ANSWER_STEP_MS). */
export function answerNamesMoment(rpc: RpcId): boolean {
  return rpc === 'ComputeThreatListDiff';
}

/** The `Cache-Control` of list answers to `rpc` (and of their 304s). */
export function listCacheControl(settings: ApiSettings, rpc: RpcId): string {
  const seconds = answerNamesMoment(rpc) ? Math.min(settings.listCacheSeconds, TIMED_ANSWER_STEP_MS / 1000) : settings.listCacheSeconds;
  return `public, max-age=${seconds}`;
}

/** The `Cache-Control` of a successful answer to `rpc`. */
export function cacheControlOf(rpc: RpcId, answer: Message, settings: ApiSettings): string {
  const holds = RPCS[rpc].answer.holds;
  if (holds === 'list update' || holds === 'list listing') return listCacheControl(settings, rpc);
  const seconds = searchSeconds(rpc, answer, settings);
  return seconds === undefined ? 'no-store' : `private, max-age=${seconds}`;
}

/**
 * Whether `If-None-Match` names `tag` (RFC 9110 §13.1.2: `*` or a list of entity tags, compared weakly,
 * so `W/"x"` matches `"x"`).
 */
export function ifNoneMatchMatches(header: string | readonly string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const values = typeof header === 'string' ? [header] : header;
  for (const value of values) {
    if (value.trim() === '*') return true;
    for (const match of value.matchAll(/(?:W\/)?("[^"]*")/g)) if (match[1] === tag) return true;
  }
  return false;
}
