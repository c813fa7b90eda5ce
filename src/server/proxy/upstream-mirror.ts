import type { ClientEvent } from '../../client/options.ts';
import { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, KNOWN_LISTS, knownList, WEB_RISK_THREAT_LISTS } from '../../lists/known-lists.ts';
import { clientUpstream, type Upstream } from './upstream.ts';
import { type FullHashSource, type SharedSearchCache, upstreamFullHashes } from '../api/full-hash-source.ts';
import type { UpstreamSearchLimits } from './upstream-searches.ts';
import type { UpstreamBudget } from './upstream-budget.ts';
import { type Clock, type MonotonicClock, systemClock } from '../../time/clock.ts';
import { ListCatalog } from '../catalog.ts';
import { ConfigError } from '../config/config-error.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { SortedHashes } from '../../store/hash-list.ts';
import type { ListUnavailable } from '../api/api-route.ts';
import { copyCurrency, type CopyCurrency } from './copy-currency.ts';
import { listedSearches } from './listed-searches.ts';
import { ListHistory } from '../lists/list-history.ts';
import { memorySnapshotStore, type SnapshotStore } from '../lists/snapshot-store.ts';
import { type Logger, type LogSink, loggerOf } from '../logger.ts';

/** SB-11: a caching proxy keeps the lists it fetched "for at least a short while, e.g. five minutes". */
const PROXY_LIST_CACHE_MS = 5 * 60_000;
/** RF-2 puts a mirror's first update within a minute of its start, and no copy is sooner than the next update. */
const MIN_LIST_RETRY_AFTER_SECONDS = 60;
/** The longest Retry-After clients take (RETRY_AFTER_MAX_MS): the mirror's back-off may be longer, another instance's copy come sooner. */
const MAX_LIST_RETRY_AFTER_SECONDS = 15 * 60;

/** What {@link UpstreamMirror.start} mirrors, and how. */
export interface UpstreamOptions {
  /** The upstream's origin, e.g. https://safebrowsing.googleapis.com. */
  url: string;
  /** API key for the upstream. */
  apiKey?: string | undefined;
  /** Protocol spoken to the upstream; v5 by default. */
  protocol?: 'v5' | 'v4' | 'webrisk';
  /**
   * Lists to mirror; by default the SB-11 threat lists, and the global cache over v5; over Web Risk,
   * its three (WEB_RISK_THREAT_LISTS).
   */
  lists?: readonly string[];
  /** Where the mirror keeps its copy between restarts. */
  dataDir?: string | undefined;
  /** Versions of each list kept for diffs; 10 by default. */
  keepVersions?: number;
  /** RF-2 window of the mirror's first update (tests shorten it). */
  firstUpdateWindowMs?: number;
  /** The mirroring client's events (updates, failures, dropped lists, damaged files). */
  onEvent?: (event: ClientEvent) => void;
  /**
   * Where the mirrored lists are published: this process's memory by default, or a store shared by
   * several proxy instances (Redis), which then serve the same versions and diffs.
   */
  store?: SnapshotStore;
  /** A cache of the upstream's search answers that proxy instances share, asked before the upstream. */
  searchCache?: SharedSearchCache;
  /** How searches spend the upstream's patience: its rate, each requester's share, the longest wait. */
  searchLimits?: Partial<UpstreamSearchLimits>;
  /**
   * The clock of the searches' schedule and shares, and of the shared cache's expiries (tests drive it
   * by hand); the system's by default. The mirroring client's is `clock`.
   */
  searchClock?: MonotonicClock;
  /**
   * The mirroring client's clock: when its updates are due, and until when its lists are current
   * (tests drive it by hand); the system's by default.
   */
  clock?: Clock;
  /** Where the searches' bucket and shares are kept: this instance's memory by default, or one budget of several instances (Redis). */
  searchBudget?: UpstreamBudget;
  /** Where to say that a mirrored list could not be published. */
  log?: LogSink;
}

/** How a mirrored list is published: as the known list of its name (the upstream sends hashes, not descriptions). */
function definitionOf(name: string): ListDefinition {
  const known = knownList(name);
  if (known === undefined || known.name !== name) {
    throw new ConfigError(
      'lists',
      `a proxy mirrors the lists of SB-11 (${KNOWN_LISTS.map((list) => list.name).join(', ')}); "${name}" is not one of them`,
    );
  }
  const description = `${known.description} (mirrored)`;
  return 'threatType' in known.holds
    ? { name, hashLength: known.width, threatTypes: [known.holds.threatType], likelySafeTypes: [], description }
    : { name, hashLength: known.width, threatTypes: [], likelySafeTypes: [known.holds.likelySafeType], description };
}

/** A moment as a message names it. */
function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Proxy mode: the upstream's lists mirrored by sbkit's own client parts (upstream.ts, which keep the
 * request-frequency rules towards the upstream) and republished with this server's own versions and
 * diffs; searches go to the client's cache first and the upstream second (upstreamFullHashes).
 */
export class UpstreamMirror {
  /** The mirrored lists, for {@link createServer}'s `catalog`. */
  readonly catalog: ListCatalog;
  /** Searches answered from the client's cache, then the upstream, for {@link createServer}'s `fullHashes`. */
  readonly fullHashes: FullHashSource;
  private readonly histories: Map<string, ListHistory>;
  /** Lists the upstream said it does not publish: not served, until it has them. */
  private readonly withdrawn = new Set<string>();
  /** When the mirroring client last dropped each list it dropped (SB-9): copies sent before are not current. */
  private readonly droppedAt = new Map<string, number>();

  private constructor(
    /** The upstream as the mirror follows it: its lists as last sent, and its searches. */
    readonly upstream: Upstream,
    names: readonly string[],
    keep: number,
    private readonly store: SnapshotStore,
    private readonly log: Logger,
    /** The mirroring client's clock: copies are current by its time. */
    private readonly clock: Clock,
    searchCache: SharedSearchCache | undefined,
    searchLimits: Partial<UpstreamSearchLimits> | undefined,
    searchClock: MonotonicClock | undefined,
    searchBudget: UpstreamBudget | undefined,
    listsAreWholeDatabase: boolean,
  ) {
    this.histories = new Map(names.map((name) => [name, new ListHistory(definitionOf(name), { keep })]));
    this.catalog = new ListCatalog(this.histories.values());
    const searches = upstreamFullHashes(upstream, searchCache, searchLimits, searchClock, searchBudget);
    this.fullHashes = listsAreWholeDatabase ? listedSearches(searches, () => this.listCopies()) : searches;
  }

  /**
   * The hashes of every mirrored list, or undefined while one's published copy is not current
   * (copy-currency.ts) or not the newest this instance knows: a copy whose updates stopped (a revoked key,
   * a quota, an outage), that was dropped for a checksum mismatch (SB-9), or that stayed published when
   * the store could not take a newer one, cannot say that a prefix it lacks is unlisted upstream now.
   */
  private listCopies(): SortedHashes[] | undefined {
    const copies: SortedHashes[] = [];
    for (const [name, history] of this.histories) {
      if (this.withdrawn.has(name)) continue;
      const currency = this.currencyOf(name, history);
      if (currency.state !== 'current' || !currency.newest) return undefined;
      copies.push(history.current().served());
    }
    return copies;
  }

  /**
   * Opens the mirror's copy (serving it at once) and starts following the upstream.
   *
   * @throws ClientOptionError for options the client refuses; DatabaseStorageError when
   *   `dataDir` cannot be used; SnapshotStoreError when `store` cannot be read.
   */
  static async start(options: UpstreamOptions): Promise<UpstreamMirror> {
    const protocol = options.protocol ?? 'v5';
    const defaultLists = protocol === 'webrisk' ? WEB_RISK_THREAT_LISTS : DEFAULT_THREAT_LISTS;
    const threatLists = (options.lists ?? defaultLists).filter((name) => name !== GLOBAL_CACHE_LIST);
    const withGlobalCache = protocol === 'v5' && (options.lists === undefined || options.lists.includes(GLOBAL_CACHE_LIST));
    let mirror: UpstreamMirror | undefined;
    const upstream = clientUpstream({
      server: options.url,
      apiKey: options.apiKey,
      protocol,
      mode: withGlobalCache ? 'realtime' : 'local',
      lists: threatLists,
      dataDir: options.dataDir,
      firstUpdateWindowMs: options.firstUpdateWindowMs,
      minimumUpdateWaitMs: PROXY_LIST_CACHE_MS,
      clock: options.clock,
      onEvent: (event) => {
        if (event.type === 'list-dropped') mirror?.dropped(event.list);
        if (event.type === 'update' || event.type === 'list-dropped') void mirror?.republish();
        if (event.type === 'lists-not-published') mirror?.withdraw(event.lists, event.available);
        options.onEvent?.(event);
      },
    });
    const names = [...threatLists, ...(withGlobalCache ? [GLOBAL_CACHE_LIST] : [])];
    mirror = new UpstreamMirror(
      upstream,
      names,
      options.keepVersions ?? 10,
      options.store ?? memorySnapshotStore,
      loggerOf(options.log),
      options.clock ?? systemClock,
      options.searchCache,
      options.searchLimits,
      options.searchClock,
      options.searchBudget,
      // Web Risk has no searches beyond its lists (listed-searches.ts); v5's real-time searches know more than its lists.
      protocol === 'webrisk',
    );
    await mirror.store.follow([...mirror.histories.values()]);
    await upstream.open();
    await mirror.republish();
    await upstream.start();
    return mirror;
  }

  /** Fetches from the upstream now, as far as its waits allow, and republishes. */
  async update(): Promise<void> {
    await this.upstream.update();
    await this.republish();
  }

  /**
   * Publishes what the upstream sent, stamped with when it sent it; unchanged lists keep their
   * versions (content-derived ids). Lists never fetched are left as they are. Never rejects: a store
   * that cannot take a list is reported, and the next update tries again.
   */
  private async republish(): Promise<void> {
    for (const [name, history] of this.histories) {
      // Content and stamp read together, after the previous list's publication: an update finishing
      // meanwhile cannot pair new content with an old stamp.
      const sent = this.upstream.list(name);
      if (sent === undefined || sent.hashes.width !== history.definition.hashLength) continue;
      if (this.withdrawn.delete(name)) {
        this.catalog.restore(history);
        this.log.info(`the upstream publishes list ${name} now; it is served again`);
      }
      try {
        await this.store.publishServed(history, sent.hashes.sortedHashes(), sent.updatedAt);
      } catch (error) {
        this.log.warn(`mirrored list ${name} could not be published: ${(error as Error).message}`);
      }
    }
  }

  /**
   * Lists the upstream does not publish (its client asked it which it has): withdrawn from the catalog,
   * so that they are answered as any list this server lacks rather than as an empty copy, or with 503
   * "no copy yet" for ever; each logged once. A list the client holds a copy of is never asked about
   * again (SB-9: a list once published stays): one the upstream stops publishing after this instance
   * mirrored it is not withdrawn, but its updates fail, its copy stops being current and its requests
   * get 503 saying so (listUnavailable), as for any copy whose updates stopped.
   */
  private withdraw(names: readonly string[], available: readonly string[]): void {
    for (const name of names) {
      if (this.withdrawn.has(name)) continue;
      this.withdrawn.add(name);
      this.catalog.withdraw(name);
      this.log.warn(`the upstream publishes no list ${name} (it has ${available.join(', ') || 'none'}); ${name} is not served`);
    }
  }

  /** The mirroring client dropped its copy of a list (SB-9): the copy published from it is no longer the upstream's. */
  private dropped(name: string): void {
    this.droppedAt.set(name, this.clock.now());
  }

  /**
   * Whether a list holds a copy of the upstream's: mirrored here, or published by another instance
   * through the shared store. Before that it is the empty list a history starts with, which clients must
   * not take for the upstream's.
   */
  listReady(name: string): boolean {
    return this.histories.get(name)?.receivedAt !== undefined;
  }

  /**
   * Why requests for a list's contents get 503 now, or undefined when its copy may be served: none yet,
   * or one not current (copy-currency.ts). Serving an old copy with a fresh minimum wait would have every
   * client count it current from then on, and answer SAFE for what the upstream listed since.
   */
  listUnavailable(name: string): ListUnavailable | undefined {
    const history = this.histories.get(name);
    if (history === undefined) return undefined;
    const currency = this.currencyOf(name, history);
    const now = this.clock.now();
    switch (currency.state) {
      case 'current':
        return undefined;
      case 'none':
        return {
          held: false,
          reason: `this server has no copy of the upstream's ${name} yet`,
          retryAfterSeconds: MIN_LIST_RETRY_AFTER_SECONDS,
        };
      case 'dropped':
        return this.unavailable(
          `this server dropped its copy of the upstream's ${name} at ${isoOf(currency.droppedAt)}, when an update did not apply to it (SB-9); it is being fetched again in full`,
          now,
        );
      case 'stale':
        return this.unavailable(
          `this server's copy of the upstream's ${name} is not current: the upstream sent it at ${isoOf(currency.receivedAt)}, ` +
            `${Math.floor((now - currency.receivedAt) / 60_000)} minutes ago, and no update has come since (the server's log says why)`,
          now,
        );
      case 'stamped-ahead':
        return this.unavailable(
          `this server's copy of the upstream's ${name} is stamped ${isoOf(currency.receivedAt)}, ahead of this server's clock; it is not taken as current`,
          now,
        );
    }
  }

  /** A copy held but not current: to be asked for again once the mirror may have updated it (its next update, within bounds). */
  private unavailable(reason: string, now: number): ListUnavailable {
    const nextUpdateMs = (this.upstream.nextUpdateAt() ?? now) - now;
    const retryAfterSeconds = Math.min(
      Math.max(Math.ceil(nextUpdateMs / 1000), MIN_LIST_RETRY_AFTER_SECONDS),
      MAX_LIST_RETRY_AFTER_SECONDS,
    );
    return { held: true, reason, retryAfterSeconds };
  }

  /** What this instance knows of the copy `history` publishes of list `name`, judged (copy-currency.ts). */
  private currencyOf(name: string, history: ListHistory): CopyCurrency {
    const own = this.upstream.list(name);
    return copyCurrency(
      {
        receivedAt: history.receivedAt,
        own: own === undefined ? undefined : { updatedAt: own.updatedAt, current: this.upstream.listCurrent(name) },
        droppedAt: this.droppedAt.get(name),
      },
      this.clock.now(),
    );
  }

  /** Stops following the upstream and saves the request schedules. */
  close(): Promise<void> {
    return this.upstream.close();
  }
}
