// What the server knows of each source between loads: its last good copy, the validators of a URL
// feed's last good answer, and how its checks went. A list is the union of its sources' copies, so a
// source that fails keeps serving its last good copy while the others move on; a URL feed that has not
// changed costs one 304 and no parse (conditional-fetch.ts), and one that fails is tried again on its
// own back-off (source-backoff.ts) rather than at every refresh of its list.

import { type Clock, systemClock } from '../../../time/clock.ts';
import { FULL_HASH_BYTES } from '../../lists/full-hashes.ts';
import type { FeedLimits, SourceConfig } from '../../config/config.ts';
import type { FeedValidators } from './conditional-fetch.ts';
import { DEFAULT_MAX_FEED_ENTRIES } from '../../config/feed-limits-config.ts';
import type { BadLine } from '../feed-collector.ts';
import { retryDelayMs } from './source-backoff.ts';
import { SourceError, type SourceFailure } from './source-error.ts';
import { readFileSource, readUrlSource } from './source-reader.ts';
import { EventLoopTurns } from '../../../time/event-loop-turns.ts';
import { digestOf, feedCut, type HashedFeed, hashSourceBytes, hashSourceText, sourceShownName } from './source-text.ts';
import type { FeedBytes } from './feed-bytes.ts';
import { feedWorkers, type FeedWorkerPool } from './feed-worker-pool.ts';
import { fileVersion } from './file-version.ts';

/** One good version of a source, as the list uses it. */
export interface SourceCopy {
  /** The SHA-256 of each distinct expression, sorted, 32 bytes each, concatenated. */
  fullHashes: Uint8Array;
  /** Entries that became an expression, repeats included. */
  entryCount: number;
  /** Distinct expressions. */
  expressionCount: number;
  badLineCount: number;
  /** The first bad lines (feed-collector.ts MAX_REPORTED_BAD_LINES). */
  badLines: BadLine[];
  /** Size of the feed as read, in bytes (after a download's content coding is undone). */
  bytes: number;
  /** SHA-256 of the text: the same text sent again is not parsed again. */
  digest: string;
  /** When this version was first read (ms since the epoch). */
  since: number;
  /** Unique to this version among all copies of this process: which versions a list was merged from. */
  generation: number;
}

/** A list's sources merged into its full hashes. */
export interface MergedList {
  /** Sorted, distinct, 32 bytes each. */
  fullHashes: Uint8Array;
  /** Distinct expressions of each `entries` source with the operator's edits, by source index; none without edits. */
  editedExpressions?: ReadonlyMap<number, number>;
}

/** Failures in a row, since the last success. */
interface SourceFailureRun {
  /** The latest. */
  error: SourceError;
  /** When the first of them happened. */
  since: number;
  /** When the latest happened. */
  at: number;
  count: number;
}

/** What is known of one source of one list. */
export interface SourceState {
  readonly list: string;
  /** 0-based, in the list's `sources`. */
  readonly index: number;
  readonly source: SourceConfig;
  /** How public pages and metrics name it (source-text.ts sourceShownName). */
  readonly name: string;
  /** The bounds it is read with (a reload may change them; the copy stays, read within the old ones). */
  limits: FeedLimits;
  copy: SourceCopy | undefined;
  /** Of the answer `copy` came from (URL sources). */
  validators: FeedValidators | undefined;
  /** Of the file `copy` was read from (file-version.ts), when it can be trusted to name that content. */
  fileVersion: string | undefined;
  /** When the last check ended, well or not. */
  lastCheckAt: number | undefined;
  /** When the last check that left a good copy ended (a 304 and a file read again unchanged count). */
  lastSuccessAt: number | undefined;
  /** Whether that check found the copy unchanged (a 304, or the same text). */
  lastUnchanged: boolean;
  failure: SourceFailureRun | undefined;
  /** The latest failure, kept after a success (metrics). */
  lastError: { at: number; failure: SourceFailure } | undefined;
  /** When a timer's load reads it next; undefined: no timer (read at start, at reloads and with its list). */
  nextCheckAt: number | undefined;
  /** GETs sent (redirects not counted), answered or not. */
  requests: number;
  /** 304 answers. */
  notModified: number;
  /** Bytes received as sent (compressed), over all GETs. */
  receivedBytes: number;
  /** Failures over the source's life, by kind. */
  readonly failures: Map<SourceFailure, number>;
  /**
   * Distinct expressions of an `entries` source's copy with the operator's edits laid over it (entry-edits.ts),
   * as the list was last merged; undefined when the list has no edits, and for other sources.
   */
  editedExpressions: number | undefined;
}

/** What a source gives a load of its list: its copy, if it has one, and why it could not be read this time, if not. */
export interface SourceRead {
  copy: SourceCopy | undefined;
  /** The failure of this check, or of the last one when the source was not due. */
  error: SourceError | undefined;
}

/**
 * `due`: a timer's load (or any other not asked for by the operator), which reads a URL source only once
 * its refresh interval or back-off has passed and serves its copy until then. `now`: an operator's reload,
 * or the first load: every URL source is asked (conditionally). Files are read in both. `held`: nothing is
 * read, each source gives the copy it holds (an operator's edit of the entries, published at once): only
 * inline entries without a copy yet, which are no I/O, are parsed.
 */
export type ReadMode = 'due' | 'now' | 'held';

export interface SourceStatesOptions {
  clock?: Clock;
  /** Numbers in [0, 1) for the back-off's jitter. */
  random?: () => number;
  /** The threads that hash feeds' bytes; the process's (feed-worker-pool.ts feedWorkers) by default. */
  workers?: FeedWorkerPool;
  /** The wall time file times are compared with (file-version.ts), the system's by default: not `clock`, which may be a test's. */
  fileClock?: Clock;
}

/**
 * The union of `copies`: sorted, distinct full hashes, merged on a feed worker (S5: a sort of millions
 * of hashes would hold the event loop for a second), the copies kept as they are.
 */
export async function unionOf(copies: readonly SourceCopy[], workers: FeedWorkerPool): Promise<Uint8Array> {
  if (copies.length === 0) return new Uint8Array(0);
  if (copies.length === 1) return copies[0]!.fullHashes;
  return workers.merge(
    copies.map((copy) => copy.fullHashes),
    true,
  );
}

/** Names exactly these versions of a list's sources. */
export function copiesKey(copies: readonly SourceCopy[]): string {
  return copies.map((copy) => copy.generation).join(',');
}

/** Milliseconds between checks of a source, or undefined when it is read only at start and on reload. */
export function sourceRefreshMs(source: SourceConfig): number | undefined {
  return source.kind === 'entries' || source.refreshMinutes === undefined ? undefined : source.refreshMinutes * 60_000;
}

/** The states of every source of every list, in the order they were first read. */
export class SourceStates {
  private readonly states = new Map<string, SourceState>();
  private readonly merges = new Map<string, { key: string; fullHashes: Uint8Array }>();
  private readonly clock: Clock;
  private readonly random: () => number;
  /** The threads that hash its feeds and merge its lists. */
  readonly workers: FeedWorkerPool;
  private readonly fileClock: Clock;
  private generation = 0;

  constructor(options: SourceStatesOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.workers = options.workers ?? feedWorkers();
    this.fileClock = options.fileClock ?? systemClock;
  }

  /** Every source known, in the order each was first read (list order, then source order, at start). */
  all(): SourceState[] {
    return [...this.states.values()];
  }

  /** The earliest moment a timer's load of `list` has a source to read, if any. */
  nextCheckAt(list: string): number | undefined {
    let next: number | undefined;
    for (const state of this.states.values()) {
      if (state.list !== list || state.nextCheckAt === undefined) continue;
      if (next === undefined || state.nextCheckAt < next) next = state.nextCheckAt;
    }
    return next;
  }

  /** Forgets the sources of `list` from `count` on: the list has fewer since a reload. */
  prune(list: string, count: number): void {
    for (const [key, state] of this.states) if (state.list === list && state.index >= count) this.states.delete(key);
  }

  /**
   * Reads source `index` of `list` if it is due (always in mode `now`, never in mode `held`), and gives its
   * copy: the new one, or the last good one when the source failed or was not due; none when it was never
   * read (mode `held`). Never rejects with a SourceError: the failure is in the result and in the state.
   */
  async read(list: string, index: number, source: SourceConfig, limits: FeedLimits, mode: ReadMode): Promise<SourceRead> {
    const state = this.stateOf(list, index, source, limits);
    const start = this.clock.now();
    // Files are read at every load (a local read, and a text unchanged is not parsed again); URL feeds
    // are a server's to bear, and inline entries change only with the configuration (a new state).
    const due =
      state.lastCheckAt === undefined ||
      (mode !== 'held' && (source.kind === 'file' || mode === 'now' || (state.nextCheckAt !== undefined && start >= state.nextCheckAt)));
    const read = source.kind === 'entries' ? due && state.copy === undefined : due && mode !== 'held';
    if (!read) return { copy: state.copy, error: state.failure?.error };
    try {
      await this.check(state);
      const now = this.clock.now();
      state.failure = undefined;
      state.lastSuccessAt = now;
      state.lastCheckAt = now;
      const refreshMs = sourceRefreshMs(source);
      state.nextCheckAt = refreshMs === undefined ? undefined : now + refreshMs;
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      this.failed(state, error);
    }
    return { copy: state.copy, error: state.failure?.error };
  }

  /**
   * The full hashes of `list` named by `key` (what they are made of: its copies' versions, and the entry
   * edits laid over them, feed-source.ts loadList): the last ones when the key is the same as last time,
   * which a load need neither merge again nor publish, else what `build` makes of them, kept for the next
   * load. The sources `build` counts with the edits (MergedList.editedExpressions) say so in their states.
   */
  async merge(list: string, key: string, build: () => Promise<MergedList>): Promise<Uint8Array> {
    const last = this.merges.get(list);
    if (last?.key === key) return last.fullHashes;
    const merged = await build();
    this.merges.set(list, { key, fullHashes: merged.fullHashes });
    for (const state of this.states.values()) if (state.list === list) state.editedExpressions = merged.editedExpressions?.get(state.index);
    return merged.fullHashes;
  }

  private stateOf(list: string, index: number, source: SourceConfig, limits: FeedLimits): SourceState {
    const key = `${list}\n${index}`;
    const known = this.states.get(key);
    // A source changed by a reload is another source: nothing of the old one carries over. New limits
    // alone (feedTimeoutSeconds, maxMegabytes, …) bound the next read; the copy and validators stay.
    if (known !== undefined && JSON.stringify(known.source) === JSON.stringify(sourceWithoutLimits(source))) {
      known.limits = limits;
      return known;
    }
    const state: SourceState = {
      list,
      index,
      source: sourceWithoutLimits(source),
      name: sourceShownName(source),
      limits,
      copy: undefined,
      validators: undefined,
      fileVersion: undefined,
      lastCheckAt: undefined,
      lastSuccessAt: undefined,
      lastUnchanged: false,
      failure: undefined,
      lastError: undefined,
      nextCheckAt: undefined,
      requests: 0,
      notModified: 0,
      receivedBytes: 0,
      failures: new Map(),
      editedExpressions: undefined,
    };
    this.states.set(key, state);
    return state;
  }

  /** One check of a source; updates its copy and validators, or throws SourceError leaving them as they were. */
  private async check(state: SourceState): Promise<void> {
    const { source, limits } = state;
    const maxEntries = limits.maxEntries ?? DEFAULT_MAX_FEED_ENTRIES;
    switch (source.kind) {
      case 'entries': {
        // The configuration's few lines, hashed here in turns (S5): a worker would cost more than they do.
        const text = source.entries.join('\n');
        const turns = new EventLoopTurns();
        const { digest, bytes } = await digestOf(text, turns);
        const feed = await hashSourceText(source, text, maxEntries, turns);
        state.copy = this.copyOf(feed, digest, bytes);
        return;
      }
      case 'file': {
        // A file whose version is the one of the copy is not read again (a reload re-reads what changed).
        const version = await fileVersion(source.path, this.fileClock.now());
        if (version !== undefined && state.copy !== undefined && state.fileVersion === version) {
          state.lastUnchanged = true;
          return;
        }
        await this.take(state, await readFileSource(source.path, limits, feedCut(source.format, this.workers)), undefined);
        state.fileVersion = version;
        return;
      }
      case 'url': {
        state.requests++;
        // Validators describe the copy: without one, a 304 would leave nothing to serve.
        const sent = state.copy === undefined ? undefined : state.validators;
        const received = { bytes: 0 };
        let answer;
        try {
          answer = await readUrlSource(source.url, limits, source.allowPrivateAddresses, sent, received, this.clock);
        } finally {
          // Bytes that arrived count, whether the answer was good or not.
          state.receivedBytes += received.bytes;
        }
        if (!answer.modified) {
          state.notModified++;
          state.validators = answer.validators;
          state.lastUnchanged = true;
          return;
        }
        await this.take(state, answer.body, answer.validators);
        return;
      }
    }
  }

  /** A feed's bytes as the source's copy, unless they are the copy's (its digest); hashed on the feed workers. */
  private async take(state: SourceState, feed: FeedBytes, validators: FeedValidators | undefined): Promise<void> {
    state.lastUnchanged = state.copy?.digest === feed.digest;
    if (!state.lastUnchanged) {
      const maxEntries = state.limits.maxEntries ?? DEFAULT_MAX_FEED_ENTRIES;
      const hashed = await hashSourceBytes(state.source, feed, maxEntries, this.workers);
      state.copy = this.copyOf(hashed, feed.digest, feed.size);
    }
    // Kept only with the version they describe: a text that failed to parse leaves the old ones.
    state.validators = validators;
  }

  private copyOf(feed: HashedFeed, digest: string, bytes: number): SourceCopy {
    return {
      fullHashes: feed.fullHashes,
      entryCount: feed.entryCount,
      expressionCount: feed.fullHashes.length / FULL_HASH_BYTES,
      badLineCount: feed.badLineCount,
      badLines: feed.badLines,
      bytes,
      digest,
      since: this.clock.now(),
      generation: ++this.generation,
    };
  }

  private failed(state: SourceState, error: SourceError): void {
    const now = this.clock.now();
    const count = (state.failure?.count ?? 0) + 1;
    state.failure = { error, since: state.failure?.since ?? now, at: now, count };
    state.lastCheckAt = now;
    state.lastError = { at: now, failure: error.failure };
    state.failures.set(error.failure, (state.failures.get(error.failure) ?? 0) + 1);
    const refreshMs = sourceRefreshMs(state.source);
    if (refreshMs === undefined) state.nextCheckAt = undefined;
    else if (state.source.kind === 'url') {
      const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
      state.nextCheckAt = now + retryDelayMs(count, refreshMs, this.random(), retryAfterMs);
    } else state.nextCheckAt = now + refreshMs;
  }
}

/** A copy of `source` without its own limits, which `limits` of the state carry (source-text.ts sourceLimits). */
function sourceWithoutLimits(source: SourceConfig): SourceConfig {
  const copy = structuredClone(source) as SourceConfig & { timeoutMs?: number; maxBytes?: number; maxEntries?: number };
  delete copy.timeoutMs;
  delete copy.maxBytes;
  delete copy.maxEntries;
  return copy;
}
