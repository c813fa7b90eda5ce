/** What the operator sets about answers (`minimum_wait_duration` and `cache_duration` are settings). */
export interface ApiSettings {
  /** Sent with every complete list update (SB-12); Firefox ignores less than 300 s (docs/api.md §3 pitfall 6). */
  minimumWaitMs: number;
  /** `cache_duration` of search answers, and the v4 negative and per-match durations. */
  cacheDurationMs: number;
  /** `Cache-Control: max-age` of list answers; SB-11 asks caching proxies for at least five minutes. */
  listCacheSeconds: number;
}

export const DEFAULT_API_SETTINGS: ApiSettings = {
  minimumWaitMs: 30 * 60_000,
  cacheDurationMs: 5 * 60_000,
  listCacheSeconds: 300,
};
