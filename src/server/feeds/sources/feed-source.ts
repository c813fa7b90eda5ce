import { DEFAULT_FEED_LIMITS, type FeedLimits, type ListConfig } from '../../config/config.ts';
import { type EntryEdits, NO_EDITS } from '../entry-edits.ts';
import { EDITS_LABEL, editsKey, withEntryEdits } from '../edited-list.ts';
import type { BadLine } from '../feed-collector.ts';
import type { SourceError } from './source-error.ts';
import { copiesKey, type ReadMode, type SourceCopy, SourceStates, unionOf } from './source-states.ts';
import { sourceLabel, sourceLimits } from './source-text.ts';

/** What one source contributed to a list, for the operator's log and status page. */
interface SourceReport {
  source: string;
  entryCount: number;
  expressionCount: number;
  badLineCount: number;
  /** The first bad lines (feed-collector.ts MAX_REPORTED_BAD_LINES). */
  badLines: BadLine[];
}

/** A source that failed this time but still counts with its last good copy. */
interface StaleSource {
  error: SourceError;
  /** When the copy served was read. */
  copySince: number;
}

export interface LoadedList {
  /** SHA-256 of every distinct expression of all sources, sorted, 32 bytes each, concatenated. */
  fullHashes: Uint8Array;
  /** Distinct expressions over all sources (the number of full hashes). */
  expressions: number;
  /** Bad lines over all sources that count. */
  badLines: number;
  /** The sources that failed with no copy to serve; the list holds the entries of the others. */
  errors: SourceError[];
  /** The sources never read yet (only in mode `held`), as sourceLabel names them; the list holds the entries of the others. */
  unread: string[];
  /** The sources that failed this time (or last time, and are not due yet) and count with their last good copy. */
  stale: StaleSource[];
  /** One report per source that counts (a copy read now or kept), in configuration order. */
  sources: SourceReport[];
  /**
   * Names the versions of the sources `fullHashes` was made of: a load with the same key as an earlier one
   * holds the same entries (nothing changed, or only 304s and texts read again unchanged).
   */
  contentKey: string;
}

/**
 * Reads the sources of `list` that are due in `mode` (every one in mode `now`, none in mode `held`) into
 * `states`, one after another, so that at most one feed's text is in memory at a time (a feed may be
 * hundreds of megabytes). Never rejects with a SourceError: failures are in the states.
 */
export async function readSources(list: ListConfig, limits: FeedLimits, states: SourceStates, mode: ReadMode): Promise<void> {
  states.prune(list.name, list.sources.length);
  if (mode === 'held') return;
  for (const [index, source] of list.sources.entries()) await states.read(list.name, index, source, sourceLimits(source, limits), mode);
}

/**
 * Loads the sources of a list through `states`, which keeps each source's last good copy (readSources),
 * and merges the copies into the list's full hashes. A source that fails with a copy still counts with it
 * (`stale`); one without is reported in `errors` (or `unread` when it was never read), and the others
 * still count. In mode `due` (a timer's load), URL sources are read only once their refresh interval or
 * back-off has passed; in mode `held`, no source is read. The edits (entry-edits.ts), from `readEdits`,
 * lie over the list's `entries` sources, when it has one (edited-list.ts); they are read once the sources
 * are, so that an edit made during a slow download (on another instance sharing them, with --redis) is not
 * left out of what this load publishes.
 */
export async function loadList(
  list: ListConfig,
  limits: FeedLimits = DEFAULT_FEED_LIMITS,
  states: SourceStates = new SourceStates(),
  mode: ReadMode = 'now',
  readEdits: () => Promise<EntryEdits> = async () => NO_EDITS,
): Promise<LoadedList> {
  await readSources(list, limits, states, mode);
  const errors: SourceError[] = [];
  const unread: string[] = [];
  const stale: StaleSource[] = [];
  const sources: SourceReport[] = [];
  const copies: SourceCopy[] = [];
  const copySources: { index: number; entries: boolean }[] = [];
  let badLines = 0;
  for (const [index, source] of list.sources.entries()) {
    const { copy, error } = await states.read(list.name, index, source, sourceLimits(source, limits), 'held');
    if (copy === undefined) {
      if (error !== undefined) errors.push(error);
      else unread.push(sourceLabel(source));
      continue;
    }
    if (error !== undefined) stale.push({ error, copySince: copy.since });
    copies.push(copy);
    copySources.push({ index, entries: source.kind === 'entries' });
    badLines += copy.badLineCount;
    sources.push({
      source: sourceLabel(source),
      entryCount: copy.entryCount,
      expressionCount: copy.expressionCount,
      badLineCount: copy.badLineCount,
      badLines: copy.badLines,
    });
  }
  const editable = list.sources.some((source) => source.kind === 'entries');
  const edits = editable ? await readEdits() : NO_EDITS;
  const edited = edits.added.length > 0 || edits.removed.length > 0;
  if (edits.added.length > 0) {
    const count = edits.added.length;
    sources.push({ source: EDITS_LABEL, entryCount: count, expressionCount: count, badLineCount: 0, badLines: [] });
  }
  // Keyed before merging: a load of the same copies and edits as the last one reuses its merge.
  const key = edited ? `${copiesKey(copies)};${editsKey(edits)}` : copiesKey(copies);
  const fullHashes = await states.merge(list.name, key, async () =>
    edited ? withEntryEdits(copies, copySources, edits, states.workers) : { fullHashes: await unionOf(copies, states.workers) },
  );
  return { fullHashes, expressions: fullHashes.length / 32, badLines, errors, unread, stale, sources, contentKey: key };
}
