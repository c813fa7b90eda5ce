import { DEFAULT_WEB_RISK_LISTS, type WebRiskLists } from '../../lists/web-risk-lists.ts';
import type { ListHistory } from '../lists/list-history.ts';

/** What the operator sets about answers (`minimum_wait_duration` and `cache_duration` are settings). */
export interface ApiSettings {
  /** Sent with every complete list update (SB-12); Firefox ignores less than 300 s (docs/api.md §3 pitfall 6). */
  minimumWaitMs: number;
  /**
   * Sent instead of `minimumWaitMs` with a complete update of a list that is changing (its newest version
   * younger than `changingWindowMs`), so that local-mode clients come back sooner while it does; undefined:
   * never. Never zero, which would tell a client its update was cut short (SB-12).
   */
  changingMinimumWaitMs: number | undefined;
  /** How long after its last change a list counts as changing. */
  changingWindowMs: number;
  /** `cache_duration` of search answers that hold a full hash, and the v4 per-match durations. */
  positiveCacheDurationMs: number;
  /**
   * `cache_duration` of search answers that hold none, and v4's `negative_cache_duration`: how long a
   * client that checked a URL may go on missing an entry added for it. 30 s by default, so that a
   * long-lived real-time client sees a new entry within about 30 s, at the cost of a search for each URL
   * it checks again more than 30 s after the last (docs/configuration.md "Freshness").
   */
  negativeCacheDurationMs: number;
  /** `Cache-Control: max-age` of list answers; SB-11 asks caching proxies for at least five minutes. */
  listCacheSeconds: number;
  /** Which list answers each Web Risk threat type (`webRiskLists`); only 4-byte lists can. */
  webRiskLists: WebRiskLists;
}

export const DEFAULT_API_SETTINGS: ApiSettings = {
  minimumWaitMs: 30 * 60_000,
  changingMinimumWaitMs: undefined,
  changingWindowMs: 30 * 60_000,
  positiveCacheDurationMs: 5 * 60_000,
  negativeCacheDurationMs: 30_000,
  listCacheSeconds: 300,
  webRiskLists: DEFAULT_WEB_RISK_LISTS,
};

/**
 * SB-12: the `minimum_wait_duration` of a complete update of `history` (of a list this server does not
 * publish, when undefined) at `now`: the short wait while the list is changing, the usual one otherwise.
 */
export function minimumWaitOf(history: ListHistory | undefined, settings: ApiSettings, now: number): number {
  const changing =
    settings.changingMinimumWaitMs !== undefined && history !== undefined && now - history.current().createdAt < settings.changingWindowMs;
  return changing ? Math.min(settings.changingMinimumWaitMs!, settings.minimumWaitMs) : settings.minimumWaitMs;
}
