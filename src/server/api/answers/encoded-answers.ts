// List answers encoded once per list version. Every client of a list asks the same few questions (the
// current version, the update from each recent version), so the Rice coding and protobuf or JSON
// encoding of an answer are done on its first request and reused until a publish changes what it would
// say. The key is the answer's strong ETag (list-etag.ts), which covers everything the bytes depend on.

import type { EncodedPayload } from '../../../wire/payload.ts';

/** What the cache holds at most, in bytes of encoded answers: a few full updates of multi-million-entry lists. */
const ENCODED_ANSWERS_MAX_BYTES = 64 * 1024 * 1024;
/** And in answers: clients that vary their size constraints make many small ones. */
const ENCODED_ANSWERS_MAX_ENTRIES = 1024;

function sizeOf(tag: string, payload: EncodedPayload): number {
  return payload.body.byteLength + tag.length;
}

/**
 * Encoded list answers by tag, the least recently used forgotten first, bounded in bytes and entries
 * so that what clients can make the server keep stays bounded (docs/architecture.md). An answer larger
 * than the whole cache is encoded for each request and never kept.
 */
export class EncodedAnswers {
  private readonly entries = new Map<string, EncodedPayload>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = ENCODED_ANSWERS_MAX_BYTES,
    private readonly maxEntries = ENCODED_ANSWERS_MAX_ENTRIES,
  ) {}

  /** The answer kept under `tag`, if any; it becomes the most recently used. */
  get(tag: string): EncodedPayload | undefined {
    const kept = this.entries.get(tag);
    if (kept === undefined) return undefined;
    // Map keeps insertion order: re-inserting marks the entry as the most recently used.
    this.entries.delete(tag);
    this.entries.set(tag, kept);
    return kept;
  }

  /** Keeps `payload` under `tag` (replacing what was there), forgetting the oldest answers beyond the bounds; returns it. */
  keep(tag: string, payload: EncodedPayload): EncodedPayload {
    this.forget(tag);
    const size = sizeOf(tag, payload);
    if (size > this.maxBytes) return payload;
    this.entries.set(tag, payload);
    this.bytes += size;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.forget(oldest);
    }
    return payload;
  }

  private forget(tag: string): void {
    const entry = this.entries.get(tag);
    if (entry === undefined) return;
    this.entries.delete(tag);
    this.bytes -= sizeOf(tag, entry);
  }

  /** Answers kept, and their bytes. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
