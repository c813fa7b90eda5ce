// Searches for full hashes (`hashes:search`, v4 `fullHashes:find`): the memory cache in front, the
// search schedule that keeps RF-3 and RF-4 for searches, and the cutting of large searches into
// requests a front end accepts. A caching proxy asks its upstream through `cached` and
// `searchPrefixes` (server/proxy/upstream.ts); the client's checks through `search`.

import { prefix32 } from '../url/hash-string.ts';
import { retryAfterOfRefusal } from '../wire/retry-after.ts';
import type { Clock } from '../time/clock.ts';
import type { LocalCache } from './local-cache.ts';
import { RequestSchedule, type ScheduleState } from './updates/schedule.ts';
import type { FullHashMatch } from '../lists/threat-details.ts';
import type { ListState, SearchResult, Transport } from './transport/transport.ts';
import { SearchDeferredError } from './client-errors.ts';
import { boundedSearchAnswer } from './search-answer-bounds.ts';
import { mergeSearchResults } from './transport/search-results.ts';

/**
 * Prefixes per search request. The API allows 1000, but a v5 search is a GET whose prefixes fill the
 * query string (about 20 bytes each): 250 keep the request line near 5 KB, inside the 8 KB that common
 * front ends (nginx, many load balancers) accept by default. A refused request would start RF-4
 * back-off for everyone a proxy serves.
 */
export const SEARCH_PREFIXES_PER_REQUEST = 250;

export interface HashSearcherParts {
  connection: () => Promise<Transport>;
  cache: LocalCache;
  clock: Clock;
  random: () => number;
  /** The list states the client holds (v4 sends them as `client_states`). */
  listStates: () => ListState[];
  /**
   * Saves the schedules, before the search answers, when a wait began or back-off began or ended: RF-3
   * and RF-4 must hold even for a process that crashes right after. Never rejects.
   */
  saveSchedules: () => Promise<unknown>;
}

export class HashSearcher {
  private schedule: RequestSchedule;

  constructor(private readonly parts: HashSearcherParts) {
    this.schedule = new RequestSchedule(parts.clock.now(), 0, 0);
  }

  /** The search schedule, to be saved beside the lists. */
  get state(): ScheduleState {
    return this.schedule.state;
  }

  /** Takes over the schedule an earlier process saved (a moment more than a day off is cut to a day). */
  restore(state: ScheduleState): void {
    this.schedule = RequestSchedule.restore(state, this.parts.clock.now());
  }

  /**
   * One search, within the request-frequency rules (RF-3, RF-4). More prefixes than one request should
   * carry go out as several requests at once, ruled as one search: a v4 minimum wait set by the first
   * answer cannot hold back the rest, and a failure of any is one failure. Rejects with
   * SearchDeferredError while a wait is in force, and with the transport's error when a request fails.
   */
  async search(prefixes: readonly number[]): Promise<SearchResult> {
    const { clock } = this.parts;
    if (!this.schedule.mayRequest(clock.now())) throw new SearchDeferredError(this.schedule.earliest);
    const failuresBefore = this.schedule.consecutiveFailures;
    try {
      const lists = this.parts.listStates();
      const chunks: (readonly number[])[] = [];
      for (let start = 0; start < prefixes.length; start += SEARCH_PREFIXES_PER_REQUEST)
        chunks.push(prefixes.slice(start, start + SEARCH_PREFIXES_PER_REQUEST));
      const transport = await this.parts.connection();
      const answers = chunks.map(async (chunk) => boundedSearchAnswer(chunk, await transport.search(chunk, lists)));
      const result = mergeSearchResults(await Promise.all(answers));
      this.schedule.succeeded(clock.now(), result.minimumWaitMs);
      await this.scheduleChanged(failuresBefore);
      return result;
    } catch (err) {
      const now = clock.now();
      // A 429 or 503 that says when to come back is obeyed as said; any other failure backs off (RF-4).
      // A caching proxy's searches meet such refusals from its upstream's load control (LC-4): turned
      // into 15 to 30 minutes of back-off, every search the cache misses would fail for that long.
      const retryAfterMs = retryAfterOfRefusal(err, now);
      if (retryAfterMs === undefined) this.schedule.failed(now, this.parts.random());
      else this.schedule.retryAfter(now, retryAfterMs);
      await this.scheduleChanged(failuresBefore);
      throw err;
    }
  }

  /** A wait now in force, or back-off begun or ended, is saved before the search answers. */
  private async scheduleChanged(failuresBefore: number): Promise<void> {
    if (this.schedule.earliest > this.parts.clock.now() || this.schedule.consecutiveFailures !== failuresBefore)
      await this.parts.saveSchedules();
  }

  /**
   * What the memory cache alone knows of these prefixes (SB-4): the full hashes it holds under them, the
   * prefixes it has no answer for, and how long the answers it has stay valid. What a caching proxy
   * looks at before it spends a request of its upstream on a search.
   */
  cached(prefixes: readonly number[]): { fullHashes: FullHashMatch[]; remaining: number[]; cacheDurationMs: number } {
    const now = this.parts.clock.now();
    const { remaining, fullHashes, expiresAt } = this.parts.cache.consult(prefixes, now);
    return { fullHashes, remaining: [...remaining], cacheDurationMs: Number.isFinite(expiresAt) ? Math.max(0, expiresAt - now) : 0 };
  }

  /**
   * The full hashes under 4-byte prefixes, from the cache where it knows and from the server for the
   * rest (cached in turn, negative answers too): what a caching proxy needs of its upstream.
   * `cacheDurationMs` is the shortest time any of the answers stays valid. Rejects as `search` does.
   */
  async searchPrefixes(prefixes: readonly number[]): Promise<{ fullHashes: FullHashMatch[]; cacheDurationMs: number }> {
    const { cache, clock } = this.parts;
    const now = clock.now();
    const { remaining, fullHashes, expiresAt } = cache.consult(prefixes, now);
    let validForMs = expiresAt - now;
    if (remaining.size > 0) {
      const asked = [...remaining];
      const response = await this.search(asked);
      const answeredAt = clock.now();
      cache.store(asked, response, answeredAt);
      // From the answer itself, not the cache: a zero cache duration must not lose a threat.
      // One by one: a spread of a server's array into a call overflows the stack past some 100,000.
      for (const match of response.fullHashes) if (remaining.has(prefix32(match.fullHash))) fullHashes.push(match);
      // A prefix the cache could not keep (it is full) is valid for no time at all.
      const stored = cache.consult(asked, answeredAt);
      validForMs = Math.min(validForMs, stored.remaining.size > 0 ? 0 : stored.expiresAt - answeredAt);
    }
    return { fullHashes, cacheDurationMs: Number.isFinite(validForMs) ? Math.max(0, validForMs) : 0 };
  }
}
