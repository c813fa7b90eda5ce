// The client's URL checks: the SB-8 procedure of its mode (check.ts) run for many URLs at once against
// the lists, cache and searches the client keeps (lists-and-searches.ts), with one search per step for
// all of them, each URL's result, and the counts of what was answered and by whom.

import type { ExpressionHasher } from '../url/expression-hasher.ts';
import {
  type AnsweredBy,
  type CheckContext,
  type CheckOutcome,
  type CheckStep,
  type Threat,
  finishChecks,
  localThreatListStep,
  localThreatListStepsInBulk,
  noStorageStep,
  prepareUrl,
  type PreparedUrl,
  realTimeStep,
} from './check.ts';
import { type CheckError, ListsNotCurrentError, SearchDeferredError, UnexpectedError } from './client-errors.ts';
import type { ClientSettings } from './client-settings.ts';
import type { ListsAndSearches } from './lists-and-searches.ts';
import { UnknownListError } from '../lists/unknown-list-error.ts';

/** URLs looked up in the local lists together in a bulk check (local mode), and the fewest that make one. */
const BULK_CHECK_URLS = 8192;
const BULK_CHECK_MIN_URLS = 1024;

/** What {@link SafeBrowsingClient.checkUrl} found out about one URL: checked, or not. */
export type CheckResult = CheckedResult | UncheckedResult;

interface ResultOfUrl {
  /** The URL as given. */
  url: string;
  /** The URL after SB-5 canonicalization. */
  canonicalUrl: string;
  /** Every threat the URL matched, enforced or not (CANARY, FRAME_ONLY outside frames). */
  threats: Threat[];
}

/** A URL that was checked. */
export interface CheckedResult extends ResultOfUrl {
  /** UNSAFE when an enforced threat matched: warn, and say the page is *suspected* (SB-3); SAFE when none did. */
  verdict: 'SAFE' | 'UNSAFE';
  /** Who gave the verdict: the memory cache, the local lists, or the server. */
  answeredBy: AnsweredBy;
  /** Never set: a checked URL met no error. */
  error?: undefined;
}

/** A URL that could not be checked: never to be taken for SAFE. */
export interface UncheckedResult extends ResultOfUrl {
  /** Not checked: neither SAFE nor UNSAFE. */
  verdict: 'UNKNOWN';
  /** Nobody answered. */
  answeredBy?: undefined;
  /** Why: no answer from the server, a wait the rules impose, lists that cannot vouch, any other failure. */
  error: CheckError;
}

/** What the checks so far came to: the part of {@link ClientStats} that counts URLs. */
export interface CheckCounts {
  /** URLs checked. */
  checks: number;
  /** Checks by who gave the verdict: the memory cache, the local lists, or the server. */
  answeredBy: Record<AnsweredBy, number>;
  /** UNSAFE verdicts. */
  unsafe: number;
  /** Checks that could not be made: UNKNOWN verdicts. */
  unknown: number;
  /** Checks whose server request failed (some still answered, by the local lists in real-time mode). */
  failures: number;
  /** Checks that could not ask the server because a wait was in force (RF-3, RF-4). */
  deferred: number;
}

export class UrlChecks {
  private readonly counts: CheckCounts = {
    checks: 0,
    answeredBy: { cache: 0, database: 0, server: 0 },
    unsafe: 0,
    unknown: 0,
    failures: 0,
    deferred: 0,
  };

  constructor(
    private readonly kept: ListsAndSearches,
    private readonly settings: ClientSettings,
    private readonly hasher: ExpressionHasher,
    /** Random decoy prefixes added to each search (SB-8). */
    private readonly decoyPrefixes: number,
  ) {}

  /** The counts so far, a copy. */
  get counted(): CheckCounts {
    return { ...this.counts, answeredBy: { ...this.counts.answeredBy } };
  }

  private context(inFrame: boolean): CheckContext {
    const { updater, cache, searcher } = this.kept;
    const { mode, threatLists: names, globalCache: globalCacheName, clock } = this.settings;
    // The lists as they stand when the check begins: one consistent set for all of its URLs, looked up
    // once rather than by name for every hash.
    // The global cache too vouches only while current (and published): otherwise no URL is sent past the server.
    const now = clock.now();
    const globalCache =
      globalCacheName === undefined || !updater.isCurrent(globalCacheName, now) ? undefined : updater.list(globalCacheName);
    const threatLists = names.flatMap((name) => updater.list(name) ?? []);
    return {
      cache,
      listsProblem: mode === 'nostorage' ? undefined : updater.notCurrent(names, now),
      lists: {
        inGlobalCache: (hash) => globalCache !== undefined && globalCache.matches(hash),
        inThreatLists: (hash, prefix) => {
          for (const list of threatLists) if (list.matches(hash, prefix)) return true;
          return false;
        },
        // Each list's answers ORed together: a prefix is listed when any list holds it.
        inThreatListsByPrefix: threatLists.every((list) => list.width === 4)
          ? (prefixes, found) => {
              found.fill(0);
              const each = new Uint8Array(found.length);
              for (const list of threatLists) {
                list.hasEachPrefix(prefixes, each);
                for (let i = 0; i < found.length; i++) found[i]! |= each[i]!;
              }
            }
          : undefined,
      },
      search: (prefixes) => searcher.search(prefixes),
      now: () => clock.now(),
      decoyPrefixes: this.decoyPrefixes,
      random: this.settings.random,
      inFrame,
    };
  }

  /**
   * Checks many URLs with few searches: each URL goes through the SB-8 procedure of the mode, but the
   * prefixes that the local cache cannot answer go to the server together, in one search (of several
   * requests of at most 250 prefixes) per step of the procedure, so at most two in real-time mode. Each
   * URL gets the verdict it would get alone; a failed search makes each URL that needed it UNKNOWN (in
   * real-time mode, unless current local lists answer it). The lists must be open.
   *
   * @throws {@link InvalidUrlError}, before anything is asked, when any URL is unusable.
   */
  async check(urls: readonly string[], inFrame: boolean): Promise<CheckResult[]> {
    const { mode } = this.settings;
    const ctx = this.context(inFrame);
    const first = mode === 'realtime' ? realTimeStep : mode === 'local' ? localThreatListStep : noStorageStep;
    // A URL answered without the server gets its result at once, so that only results outlive the loop
    // (most of a bulk check's URLs, and what the garbage collector would otherwise copy). The rest wait
    // for one search together, with their prepared hashes in real-time mode, whose UNSURE needs them again.
    const results = new Array<CheckResult>(urls.length);
    const waiting: { index: number; step: CheckStep; prepared: PreparedUrl | undefined }[] = [];
    const settle = (i: number, step: CheckStep, p: PreparedUrl | undefined): void => {
      if ('outcome' in step && step.outcome.verdict !== 'UNSURE') results[i] = this.result(urls[i]!, step.outcome);
      else waiting.push({ index: i, step, prepared: mode === 'realtime' ? p : undefined });
    };
    const take = (i: number, p: PreparedUrl): void => settle(i, first(ctx, p), p);
    // A bulk check in local mode with an empty cache, on a runtime that hashes synchronously, looks its
    // URLs up in the lists BULK_CHECK_URLS at a time, several times faster than one by one (check.ts).
    const hashAllNow = this.hasher.hashAllNow;
    const byPrefix = ctx.lists.inThreatListsByPrefix;
    if (
      mode === 'local' &&
      urls.length >= BULK_CHECK_MIN_URLS &&
      this.kept.cache.size === 0 &&
      hashAllNow !== undefined &&
      byPrefix !== undefined
    ) {
      for (let start = 0; start < urls.length; start += BULK_CHECK_URLS) {
        const steps = localThreatListStepsInBulk(ctx, urls.slice(start, start + BULK_CHECK_URLS), hashAllNow, byPrefix);
        steps.forEach((step, k) => settle(start + k, step, undefined));
      }
    } else {
      // Node hashes as it goes; an asynchronous hasher's digests (WebCrypto) are awaited together, once
      // per call, and the URLs then take their first step in order.
      const hashing: { index: number; prepared: Promise<PreparedUrl> }[] = [];
      for (let i = 0; i < urls.length; i++) {
        const p = prepareUrl(urls[i]!, this.hasher);
        if (p instanceof Promise) hashing.push({ index: i, prepared: p });
        else take(i, p);
      }
      if (hashing.length > 0) {
        const hashed = await Promise.all(hashing.map((h) => h.prepared));
        hashing.forEach((h, k) => take(h.index, hashed[k]!));
      }
    }
    const outcomes = await finishChecks(
      ctx,
      waiting.map((w) => w.step),
    );
    // RealTimeCheck's UNSURE, from the global cache or a failed search: LocalThreatListCheck decides.
    // Should it not be able to either, the failed search says best why the URL went unchecked.
    const searchErrors = outcomes.map((outcome) => outcome.error);
    const unsure = waiting.flatMap((w, k) => (w.prepared !== undefined && outcomes[k]!.verdict === 'UNSURE' ? [k] : []));
    if (unsure.length > 0) {
      const local = await finishChecks(
        ctx,
        unsure.map((k) => localThreatListStep(ctx, waiting[k]!.prepared!)),
      );
      unsure.forEach((k, j) => {
        const outcome = local[j]!;
        if (outcome.verdict === 'UNKNOWN') outcome.error = searchErrors[k] ?? outcome.error;
        outcomes[k] = outcome;
      });
    }
    waiting.forEach((w, k) => (results[w.index] = this.result(urls[w.index]!, outcomes[k]!, searchErrors[k])));
    return results;
  }

  /** The result of a procedure's outcome; `searchError`, a search of it that failed, is counted whatever the verdict. */
  private result(url: string, outcome: CheckOutcome, searchError?: CheckError): CheckResult {
    this.counts.checks++;
    // Searches that failed or were deferred; lists that could not vouch asked nobody.
    const failure = searchError ?? outcome.error;
    if (failure instanceof SearchDeferredError) this.counts.deferred++;
    else if (failure !== undefined && !(failure instanceof ListsNotCurrentError || failure instanceof UnknownListError))
      this.counts.failures++;
    const { canonicalUrl, threats, answeredBy, error } = outcome;
    // Spelled out rather than spread (a seventh of a bulk check's time); the keys in the same order.
    if ((outcome.verdict !== 'SAFE' && outcome.verdict !== 'UNSAFE') || answeredBy === undefined) {
      this.counts.unknown++;
      return {
        verdict: 'UNKNOWN',
        canonicalUrl,
        threats,
        error: error ?? new UnexpectedError('the check', 'it ended without a verdict'),
        url,
      };
    }
    this.counts.answeredBy[answeredBy]++;
    if (outcome.verdict === 'UNSAFE') {
      this.counts.unsafe++;
      return { verdict: 'UNSAFE', canonicalUrl, threats, answeredBy, url };
    }
    return { verdict: 'SAFE', canonicalUrl, threats, answeredBy, url };
  }
}
