import type { ClientEvent } from '../../client/options.ts';
import { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, KNOWN_LISTS, knownList, WEB_RISK_THREAT_LISTS } from '../../lists/known-lists.ts';
import { clientUpstream, type Upstream } from './upstream.ts';
import { type FullHashSource, type SharedSearchCache, upstreamFullHashes } from '../api/full-hash-source.ts';
import type { UpstreamSearchLimits } from './upstream-searches.ts';
import type { UpstreamBudget } from './upstream-budget.ts';
import type { Clock, MonotonicClock } from '../../time/clock.ts';
import { ListCatalog } from '../catalog.ts';
import { ConfigError } from '../config/config-error.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import { hashCount, type SortedHashes } from '../../store/hash-list.ts';
import { listedSearches } from './listed-searches.ts';
import { ListHistory } from '../lists/list-history.ts';
import { memorySnapshotStore, type SnapshotStore } from '../lists/snapshot-store.ts';
import { type Logger, type LogSink, loggerOf } from '../logger.ts';

/** SB-11: a caching proxy keeps the lists it fetched "for at least a short while, e.g. five minutes". */
const PROXY_LIST_CACHE_MS = 5 * 60_000;

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
  /** Lists published from a copy of the upstream's, by this instance. */
  private readonly mirrored = new Set<string>();
  /** Lists the upstream said it does not publish: not served, until it has them. */
  private readonly withdrawn = new Set<string>();

  private constructor(
    /** The upstream as the mirror follows it: its lists as last sent, and its searches. */
    readonly upstream: Upstream,
    names: readonly string[],
    keep: number,
    private readonly store: SnapshotStore,
    private readonly log: Logger,
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
   * The hashes of every mirrored list, or undefined while one has no copy of the upstream's yet, or
   * while this instance's copy of one is not current by the mirroring client's rules (Upstream
   * listCurrent): a copy whose updates stopped (a revoked key, a quota, an outage), or that was dropped
   * for a checksum mismatch (SB-9) while an older one stays published, cannot say that a prefix it lacks
   * is unlisted upstream now.
   */
  private listCopies(): SortedHashes[] | undefined {
    const copies: SortedHashes[] = [];
    for (const [name, history] of this.histories) {
      if (this.withdrawn.has(name)) continue;
      if (!this.listReady(name) || !this.upstream.listCurrent(name)) return undefined;
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
        this.mirrored.add(name);
      } catch (error) {
        this.log.warn(`mirrored list ${name} could not be published: ${(error as Error).message}`);
      }
    }
  }

  /**
   * Lists the upstream does not publish (its client asked it which it has): withdrawn from the catalog,
   * so that they are answered as any list this server lacks rather than as an empty copy, or with 503
   * "no copy yet" for ever; each logged once.
   */
  private withdraw(names: readonly string[], available: readonly string[]): void {
    for (const name of names) {
      if (this.withdrawn.has(name) || this.mirrored.has(name)) continue;
      this.withdrawn.add(name);
      this.catalog.withdraw(name);
      this.log.warn(`the upstream publishes no list ${name} (it has ${available.join(', ') || 'none'}); ${name} is not served`);
    }
  }

  /**
   * Whether a list holds a copy of the upstream's: mirrored here, or published by another instance
   * through the shared store (an adopted list has entries). Before that it is the empty list a history
   * starts with, which clients must not take for the upstream's.
   */
  listReady(name: string): boolean {
    const history = this.histories.get(name);
    return history !== undefined && (this.mirrored.has(name) || hashCount(history.current().served()) > 0);
  }

  /** Stops following the upstream and saves the request schedules. */
  close(): Promise<void> {
    return this.upstream.close();
  }
}
