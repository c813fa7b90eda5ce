// What one search answer may hold (issue 26, S7). A hostile server could answer each search with tens
// of thousands of full hashes, each kept a day in the local cache: some 20 MB per URL checked. An answer
// is reduced to what it can mean, and refused when no real list could have produced it, so that what
// the cache keeps is bounded per prefix as well as in prefixes (local-cache.ts bounds it in bytes).

import { hexOfBytes, bytesOfPrefix32, prefix32 } from '../url/hash-string.ts';
import { WireResponseError } from '../wire/wire-error.ts';
import type { FullHashMatch, ThreatDetail } from '../lists/threat-details.ts';
import type { SearchResult } from './transport/transport.ts';

/**
 * Distinct full hashes one 4-byte prefix may carry in an answer. Even 2^26 listed hashes (four times the
 * most entries a client takes for one list, `maxListEntries`) put 1/64 of a hash on a prefix on average,
 * and the chance that any of the 2^32 prefixes carries 8 is below 10^-9; 32 leaves room for expressions
 * made to collide. More is a broken or hostile server.
 */
export const MAX_FULL_HASHES_PER_PREFIX = 32;

/**
 * The answer to a search for `asked` as the client keeps it: only full hashes under a prefix asked about
 * (an entry elsewhere would pass for a complete answer about a prefix nobody asked), each full hash once
 * with its details merged, and its duration the shortest given. Throws a malformed-body
 * WireResponseError when a prefix carries more than {@link MAX_FULL_HASHES_PER_PREFIX}: the searches are
 * then failed, their URLs UNKNOWN, never SAFE.
 */
export function boundedSearchAnswer(asked: readonly number[], answer: SearchResult): SearchResult {
  const byPrefix = new Map<number, Map<string, FullHashMatch>>();
  for (const prefix of asked) byPrefix.set(prefix, new Map());
  for (const match of answer.fullHashes) {
    const prefix = prefix32(match.fullHash);
    const matches = byPrefix.get(prefix);
    if (matches === undefined) continue;
    const known = matches.get(match.fullHash);
    if (known !== undefined) {
      matches.set(match.fullHash, merged(known, match));
      continue;
    }
    if (matches.size === MAX_FULL_HASHES_PER_PREFIX)
      throw new WireResponseError('malformed-body', 200, undefined, tooManyMessage(prefix, answer));
    matches.set(match.fullHash, { ...match, details: distinctDetails(match.details, []) });
  }
  const fullHashes: FullHashMatch[] = [];
  for (const matches of byPrefix.values()) for (const match of matches.values()) fullHashes.push(match);
  return { ...answer, fullHashes };
}

function tooManyMessage(prefix: number, answer: SearchResult): string {
  return (
    `the server answered more than ${MAX_FULL_HASHES_PER_PREFIX} full hashes under the prefix ${hexOfBytes(bytesOfPrefix32(prefix))} ` +
    `(${answer.serverFullHashCount} in all), which no real list holds: the server is broken or hostile, and the URLs searched are not checked`
  );
}

/** One full hash given twice: every detail once, the shorter duration. */
function merged(known: FullHashMatch, again: FullHashMatch): FullHashMatch {
  const shorter = Math.min(known.cacheDurationMs ?? Infinity, again.cacheDurationMs ?? Infinity);
  return {
    fullHash: known.fullHash,
    details: distinctDetails(again.details, known.details),
    cacheDurationMs: Number.isFinite(shorter) ? shorter : undefined,
  };
}

/** `kept` and then those of `details` not among them: few, as the known threat types and attributes are few. */
function distinctDetails(details: readonly ThreatDetail[], kept: readonly ThreatDetail[]): ThreatDetail[] {
  const out = [...kept];
  for (const detail of details) {
    const same = (other: ThreatDetail) =>
      other.threatType === detail.threatType &&
      other.attributes.length === detail.attributes.length &&
      other.attributes.every((attribute) => detail.attributes.includes(attribute));
    if (!out.some(same)) out.push(detail);
  }
  return out;
}
