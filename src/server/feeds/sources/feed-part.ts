// The work of a feed worker (feed-worker.ts), and the messages it takes and answers: whole lines of a
// feed's bytes in, the sorted full hashes of their expressions and the tally of their lines out; or runs
// of sorted hashes in, their union out. It runs on a thread of its own, so it never pauses for the event
// loop; what reaches the main thread is typed arrays, moved (transferred) rather than copied.

import { mergeSortedFullHashes } from '../../lists/full-hashes.ts';
import type { CsvColumn } from '../formats/csv-feed.ts';
import { FeedCollector, type FeedTally } from '../feed-collector.ts';
import { FeedEntryLimitError, FeedFormatError } from '../feed-error.ts';
import { lineCuts, release } from './feed-bytes.ts';
import { EventLoopTurns } from '../../../time/event-loop-turns.ts';
import { type FeedFormat, feedSteps } from '../formats/feed-formats.ts';
import { HashBuckets } from '../formats/hash-buckets.ts';
import { excerpt } from '../formats/excerpt.ts';

/** Hash the entries of one part of a feed. */
export interface HashTask {
  kind: 'hash';
  /**
   * UTF-8 bytes of whole lines (feed-bytes.ts feedParts): a view of a feed's SharedArrayBuffer, read in
   * place, or an ArrayBuffer of their own, moved to the worker.
   */
  bytes: Uint8Array;
  format: FeedFormat;
  csvColumn: CsvColumn | undefined;
  /** FeedEntryLimitError past this many entries in the part. */
  maxEntries: number;
}

/** Merge runs of sorted, distinct full hashes into one. */
interface MergeTask {
  kind: 'merge';
  runs: Uint8Array[];
}

export type FeedWorkerTask = HashTask | MergeTask;

/** A part of a feed hashed: its bad lines are numbered from the part's first line, 1. */
export interface HashedPart extends FeedTally {
  /** SHA-256 of each distinct expression of the part, sorted, 32 bytes each, concatenated. */
  fullHashes: Uint8Array;
  /** Line feeds in the part: how far the next part's line numbers are from its own. */
  lineFeeds: number;
}

/** An error of the work as it crosses to the main thread, which makes the typed error again. */
export type WorkerFailure =
  { kind: 'format'; message: string } | { kind: 'entry-limit'; maxEntries: number } | { kind: 'failed'; message: string };

export type FeedWorkerAnswer = { ok: true; value: HashedPart | Uint8Array } | { ok: false; failure: WorkerFailure };

/** A worker shares its event loop with nobody: the buckets are sorted without pauses. */
const UNPAUSED = new EventLoopTurns(Number.POSITIVE_INFINITY);
const LINE_FEED = 0x0a;

/** Formats whose lines are read one by one: a feed of them can be cut at any line end (CSV records may span lines). */
export const LINE_BY_LINE: ReadonlySet<FeedFormat> = new Set(['urls', 'expressions', 'hosts']);
/**
 * Bytes of a line-by-line part decoded at a time: a part's text whole would be a string as large as the
 * part on the worker's heap (hundreds of megabytes for a feed of millions of lines), where a slice's
 * text is garbage a moment later.
 */
const SLICE_BYTES = 1 << 20;

/**
 * One part of a feed as parseFeed reads a whole one (feed-formats.ts): its entries' full hashes and its
 * tally. Throws FeedFormatError and FeedEntryLimitError as the parser does.
 */
async function hashPart(task: HashTask): Promise<HashedPart> {
  const bytes = task.bytes;
  // The task lets go of the bytes: a part shared with the main thread is freed once neither holds it.
  task.bytes = new Uint8Array(0);
  const buckets = new HashBuckets();
  const collector = new FeedCollector((expression) => buckets.add(expression), task.maxEntries);
  // A line-by-line part is read a slice of whole lines at a time (feed-bytes.ts lineCuts: none starts
  // with a byte order mark, which a decoder would drop), its bad lines numbered in the part.
  const starts = LINE_BY_LINE.has(task.format) ? lineCuts(bytes, Number.POSITIVE_INFINITY, SLICE_BYTES) : [0];
  try {
    for (const [k, start] of starts.entries()) {
      const slice = bytes.subarray(start, starts[k + 1] ?? bytes.length);
      // Invalid UTF-8 becomes U+FFFD, and a leading byte order mark is dropped, as source-reader.ts always did.
      const steps = feedSteps(new TextDecoder('utf-8').decode(slice), task.format, { csvColumn: task.csvColumn }, collector);
      while (!steps.next().done);
      collector.lineOffset += lineFeedsIn(slice);
    }
  } finally {
    // Read: the part's memory goes now, before its hashes are sorted and merged.
    release(bytes);
  }
  return { ...collector.tally(), fullHashes: await buckets.sorted(UNPAUSED), lineFeeds: collector.lineOffset };
}

function lineFeedsIn(bytes: Uint8Array): number {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let count = 0;
  for (let at = view.indexOf(LINE_FEED); at >= 0; at = view.indexOf(LINE_FEED, at + 1)) count++;
  return count;
}

/** Does a task; never throws: an error is its answer. */
export async function answer(task: FeedWorkerTask): Promise<FeedWorkerAnswer> {
  try {
    return { ok: true, value: task.kind === 'hash' ? await hashPart(task) : mergeSortedFullHashes(task.runs) };
  } catch (error) {
    if (error instanceof FeedFormatError) return { ok: false, failure: { kind: 'format', message: error.message } };
    if (error instanceof FeedEntryLimitError) return { ok: false, failure: { kind: 'entry-limit', maxEntries: error.maxEntries } };
    // Its class and message, as an excerpt (one short line): a stack would reach logs and /admin/reload's
    // answer as many lines naming where sbkit is installed.
    return { ok: false, failure: { kind: 'failed', message: excerpt(String(error)) } };
  }
}

/** The buffers an answer moves to the main thread rather than copying: only ones the array holds alone. */
export function transferOf(reply: FeedWorkerAnswer): ArrayBuffer[] {
  if (!reply.ok) return [];
  const array = reply.value instanceof Uint8Array ? reply.value : reply.value.fullHashes;
  return ownsBuffer(array) ? [array.buffer] : [];
}

/** Whether `array` is the whole of a plain ArrayBuffer, which can be moved to another thread. */
export function ownsBuffer(array: Uint8Array): array is Uint8Array<ArrayBuffer> {
  return array.buffer instanceof ArrayBuffer && array.byteOffset === 0 && array.byteLength === array.buffer.byteLength;
}
