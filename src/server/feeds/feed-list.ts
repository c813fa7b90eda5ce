// One list of a configuration and everything that keeps it published: the timer of its next refresh,
// the watch on its file sources, its reloads and publications (one at a time each), the operator's
// edits of its entries, and a publication the snapshot store refused, waiting to be tried again.
// feed-lists.ts holds one of these per list, and what they share.

import { type Backoff, backoffMs } from '../../time/backoff.ts';
import { callAt, type Clock } from '../../time/clock.ts';
import type { ListConfig } from '../config/config.ts';
import { type EntryEdits, type EntryEditStore, MAX_EDITS_PER_LIST } from './entry-edits.ts';
import type { FeedLimits } from '../config/feed-limits-config.ts';
import { InTurn } from './in-turn.ts';
import {
  abandonedReport,
  failedReport,
  heldBackReason,
  type ListLoadReport,
  loadedReport,
  refusedReason,
  republishedReport,
  republishFailedReport,
} from './list-load-report.ts';
import { loadList, type LoadedList, readSources } from './sources/feed-source.ts';
import { FileWatch, type FileWatchOptions } from './sources/file-watch.ts';
import type { ReadMode, SourceStates } from './sources/source-states.ts';
import type { ListHistory } from '../lists/list-history.ts';
import type { SnapshotStore } from '../lists/snapshot-store.ts';
import { SnapshotStoreError } from '../lists/snapshot-store-error.ts';

/** The least time between a load of a list and the next one a timer starts. */
const MIN_TIMER_GAP_MS = 1000;

/**
 * A load whose content the snapshot store could not take (Redis away) is published again after a
 * second, doubled after each refusal up to 30 s, until the store takes it or newer content of the list
 * replaces it: without it, content read during an outage waited for the next refresh, an hour for a URL
 * feed and for ever for a file read only on reload.
 */
const REPUBLISH_BACKOFF: Backoff = { firstMs: 1000, maxMs: 30_000 };

/** What an edit of a list's entries did: the edits now, and the reload that published them. */
export interface EntriesEdited {
  edits: EntryEdits;
  report: ListLoadReport;
}

/** What the lists of one configuration share (feed-lists.ts makes it). */
export interface FeedListsShared {
  /** Every source's copy, validators and health, of every list. */
  readonly sources: SourceStates;
  readonly store: SnapshotStore;
  readonly edits: EntryEditStore;
  readonly clock: Clock;
  /** How file sources are watched; false: only at start, on their interval and on reload. */
  readonly watch: FileWatchOptions | false;
  /** Aborted when the lists close: downloads under way are abandoned, and nothing more is published or timed. */
  readonly stopping: AbortSignal;
  /** Tells a report to the operator; never throws. */
  tell(report: ListLoadReport): void;
}

export class FeedList {
  /** Whether a version of the list is in service: published by this process, or by an instance it follows. */
  inService = false;
  /** The content key (feed-source.ts LoadedList) this process last published the list with. */
  private publishedKey: string | undefined;
  /** Cancels the timer of the next refresh, while one is set. */
  private cancelRefresh: (() => void) | undefined;
  private watch: FileWatch | undefined;
  /** A reload is asked for and not yet begun: asking again adds nothing. */
  private asked = false;
  private readonly reloads = new InTurn();
  private readonly publications = new InTurn();
  /** Publications begun so far: one tried again is dropped once a newer one has begun. */
  private publicationCount = 0;
  /** The timer of a refused publication waiting to be tried again. */
  private republishTimer: unknown;

  constructor(
    private config: ListConfig,
    private limits: FeedLimits,
    /** The list's published versions. */
    readonly history: ListHistory,
    private readonly shared: FeedListsShared,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Takes the sources and feed limits of a configuration read again; stop() first, watchFiles() after. */
  configure(config: ListConfig, limits: FeedLimits): void {
    this.config = config;
    this.limits = limits;
  }

  /** Starts watching the file sources, each change asking for a reload of the list. */
  async watchFiles(): Promise<void> {
    // Stopped (a start abandoned): nothing to watch for.
    if (this.shared.watch === false || this.shared.stopping.aborted) return;
    const paths = this.config.sources.flatMap((source) => (source.kind === 'file' ? [source.path] : []));
    if (paths.length === 0) return;
    this.watch = new FileWatch(paths, () => this.askReload(), { clock: this.shared.clock, ...this.shared.watch });
    await this.watch.ready;
  }

  /** Stops the refresh timer and the watch; a configuration read again restarts them. */
  stop(): void {
    this.cancelRefresh?.();
    this.cancelRefresh = undefined;
    this.watch?.close();
    this.watch = undefined;
  }

  /** Stops the refreshes, the watch and a publication waiting to be tried again. */
  close(): void {
    this.stop();
    this.shared.clock.clearTimeout(this.republishTimer);
    this.republishTimer = undefined;
  }

  /** Reloads the list once any reload of it under way has finished. Never rejects: failures are reported. */
  reload(mode: Exclude<ReadMode, 'held'>, begins: () => void = () => {}): Promise<ListLoadReport> {
    return this.reloads.run(() => {
      begins();
      return this.loadAndPublish(mode);
    });
  }

  /**
   * Adds `add` to and removes `remove` from the list's entries and publishes it at once (FeedLists.editEntries):
   * `no-entries` when it has no `entries` source for the edits to lie over, `too-many` past MAX_EDITS_PER_LIST.
   */
  async editEntries(add: readonly string[], remove: readonly string[]): Promise<EntriesEdited | 'no-entries' | 'too-many'> {
    if (!this.config.sources.some((source) => source.kind === 'entries')) return 'no-entries';
    // The store checks the cap as it writes: a check here, before the write, let concurrent edits all pass.
    const edits = await this.shared.edits.update(this.name, add, remove, MAX_EDITS_PER_LIST);
    if (edits === 'too-many') return edits;
    return { edits, report: await this.publishHeld() };
  }

  /**
   * A reload after the one under way, if any, which may have read a file before it changed; a reload
   * asked for and not yet begun already covers it. File sources are read at every load; URL sources
   * only when due.
   */
  private askReload(): void {
    if (this.asked) return;
    this.asked = true;
    void this.reload('due', () => (this.asked = false));
  }

  /**
   * Sets the timer of the next load, when the next source is due (its refresh interval, or its back-off
   * after a failure); a list without sources to refresh gets none.
   */
  private schedule(): void {
    this.cancelRefresh?.();
    this.cancelRefresh = undefined;
    const due = this.shared.sources.nextCheckAt(this.name);
    if (this.shared.stopping.aborted || due === undefined) return;
    // A load that failed before a source could set its next check leaves a moment past: not a tight loop.
    const at = Math.max(due, this.shared.clock.now() + MIN_TIMER_GAP_MS);
    this.cancelRefresh = callAt(this.shared.clock, at, () => {
      this.cancelRefresh = undefined;
      void this.reload('due');
    });
  }

  /** Reads the sources that are due in `mode`, then publishes the list from its copies. */
  private async loadAndPublish(mode: Exclude<ReadMode, 'held'>): Promise<ListLoadReport> {
    try {
      await readSources(this.config, { ...this.limits, signal: this.shared.stopping }, this.shared.sources, mode);
    } catch (err) {
      const report = failedReport(this.name, err);
      this.schedule();
      this.shared.tell(report);
      return report;
    }
    // The next load is timed once this one has read its sources (their next checks).
    return this.publishHeld(() => this.schedule());
  }

  /**
   * Merges the list from the copies its sources hold and the edits, and publishes it unless that content
   * is published already or a source without a copy holds it back. Publications run one at a time, each
   * merging what is held when its turn comes, so that the last one holds the newest copies and edits; a
   * download does not hold one up. `done` runs before the report is told. Never rejects: failures are reported.
   */
  private publishHeld(done: () => void = () => {}): Promise<ListLoadReport> {
    return this.publications.run(async () => {
      const report = await this.mergeAndPublish();
      done();
      // Stopped meanwhile: nothing was published, and nothing is told.
      if (!this.shared.stopping.aborted) this.shared.tell(report);
      return report;
    });
  }

  private async mergeAndPublish(): Promise<ListLoadReport> {
    const publication = ++this.publicationCount;
    this.shared.clock.clearTimeout(this.republishTimer);
    this.republishTimer = undefined;
    // Stopped meanwhile (SIGTERM during a reload): what was read is not published.
    if (this.shared.stopping.aborted) return abandonedReport(this.name);
    let report: ListLoadReport | undefined;
    try {
      let editsRead: EntryEdits | undefined;
      const readEdits = async () => (editsRead = await this.shared.edits.read(this.name));
      const loaded = await loadList(this.config, this.limits, this.shared.sources, 'held', readEdits);
      if (this.shared.stopping.aborted) return abandonedReport(this.name);
      report = loadedReport(this.name, loaded);
      // A source without a copy would take its entries out of a list served before: it stays as it was.
      // Nor is content published again that this process published last (304s, texts unchanged).
      const held = (loaded.errors.length > 0 || loaded.unread.length > 0) && this.inService;
      let notServed = held ? heldBackReason(loaded, this.shared.sources.nextCheckAt(this.name)) : undefined;
      if (!held && this.publishedKey !== loaded.contentKey) {
        const refusal = await this.publish(loaded);
        if (refusal === undefined) {
          report.published = true;
          if (editsRead !== undefined) await this.recheckEdits(editsRead);
        } else {
          notServed = refusedReason(refusal);
          this.republishLater(publication, loaded, { ...report, errors: [...report.errors], notServed }, 1);
          report.errors.push(refusal.message);
        }
      }
      // Compared with what this instance last published, not with whether this publication published: a
      // content published already (by a concurrent one, or unchanged) is served all the same.
      report.served = this.publishedKey === loaded.contentKey;
      if (!report.served && notServed !== undefined) report.notServed = notServed;
      return report;
    } catch (err) {
      return failedReport(this.name, err, report?.errors);
    }
  }

  /** Publishes through the store; resolves to the store's refusal, if it refused. */
  private async publish(loaded: LoadedList): Promise<SnapshotStoreError | undefined> {
    try {
      await this.shared.store.publish(this.history, loaded.fullHashes);
      this.inService = true;
      this.publishedKey = loaded.contentKey;
      return undefined;
    } catch (err) {
      if (!(err instanceof SnapshotStoreError)) throw err;
      return err;
    }
  }

  /** Tries a publication refused `refusals` times again, unless `publication` is no longer the newest by then. */
  private republishLater(publication: number, loaded: LoadedList, report: ListLoadReport, refusals: number): void {
    const waitMs = backoffMs(REPUBLISH_BACKOFF, refusals);
    this.republishTimer = this.shared.clock.setTimeout(() => {
      this.republishTimer = undefined;
      void this.publications.run(async () => {
        if (this.publicationCount !== publication || this.shared.stopping.aborted) return report;
        let refusal;
        try {
          refusal = await this.publish(loaded);
        } catch (err) {
          const failed = republishFailedReport(report, err);
          this.shared.tell(failed);
          return failed;
        }
        if (refusal !== undefined) {
          this.republishLater(publication, loaded, report, refusals + 1);
          return report;
        }
        const published = republishedReport(report);
        this.shared.tell(published);
        return published;
      });
    }, waitMs);
  }

  /**
   * Edits shared with other instances (Redis) may change between this publication's read of them and its
   * end, which every instance then follows: when they did, the list is published once more, so that an
   * edit made meanwhile on another instance is not left out for longer than one more publication.
   */
  private async recheckEdits(used: EntryEdits): Promise<void> {
    if (this.shared.edits.keeping !== 'redis') return;
    const now = await this.shared.edits.read(this.name);
    if (JSON.stringify(now) !== JSON.stringify(used)) void this.publishHeld();
  }
}
