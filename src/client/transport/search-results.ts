import type { SearchResult } from './transport.ts';

/**
 * The answers to the requests of one search as one: every full hash, the shortest durations, the longest
 * wait. A search goes out as several requests when it has more prefixes than one request should carry
 * (hash-searcher.ts), and over Web Risk as one request per prefix (transport-webrisk.ts).
 */
export function mergeSearchResults(results: readonly SearchResult[]): SearchResult {
  if (results.length === 1) return results[0]!;
  const defined = (values: (number | undefined)[]) => values.filter((v): v is number => v !== undefined);
  const negative = defined(results.map((r) => r.negativeCacheDurationMs));
  const waits = defined(results.map((r) => r.minimumWaitMs));
  return {
    fullHashes: results.flatMap((r) => r.fullHashes),
    serverFullHashCount: results.reduce((sum, r) => sum + r.serverFullHashCount, 0),
    cacheDurationMs: Math.min(...results.map((r) => r.cacheDurationMs)),
    negativeCacheDurationMs: negative.length === 0 ? undefined : Math.min(...negative),
    minimumWaitMs: waits.length === 0 ? undefined : Math.max(...waits),
  };
}
