// What a list request asks for, read one way by the answers (v5.ts, v4.ts) and by their tags
// (list-etag.ts), so that the two cannot disagree: the size constraints as sent, and which of a batch's
// versions goes to which list.

import type { ListHistory, SizeConstraints } from '../../lists/list-history.ts';

/** A request's SizeConstraints (v4 Constraints): absent or negative is 0, no limit. */
export function sizeConstraintsOf(sent: { maxUpdateEntries: number; maxDatabaseEntries: number } | undefined): SizeConstraints {
  return {
    maxUpdateEntries: Math.max(0, sent?.maxUpdateEntries ?? 0),
    maxDatabaseEntries: Math.max(0, sent?.maxDatabaseEntries ?? 0),
  };
}

/**
 * `hashLists:batchGet` versions paired with the lists asked for (undefined: a list this server does not
 * publish). docs/api.md: versions come "in any order; may be fewer or more than names". Firefox sends
 * them by position with empty placeholders, others need not: a version goes to the list that recognizes
 * it as its own, its position deciding only when several could; a list without one gets none (empty).
 */
export function pairedVersions(histories: readonly (ListHistory | undefined)[], versions: readonly Uint8Array[]): Uint8Array[] {
  const unclaimed = new Set(versions.keys());
  return histories.map((history, position) => {
    if (history === undefined) return new Uint8Array(0);
    const positional = versions[position];
    if (positional !== undefined && unclaimed.has(position) && (positional.length === 0 || history.recognizes(positional))) {
      unclaimed.delete(position);
      return positional;
    }
    for (const index of unclaimed) {
      const candidate = versions[index]!;
      if (candidate.length > 0 && history.recognizes(candidate)) {
        unclaimed.delete(index);
        return candidate;
      }
    }
    return new Uint8Array(0);
  });
}
