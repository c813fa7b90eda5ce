// A feed as read (source-reader.ts): its bytes as they arrived, never decoded on the main thread, in the
// parts that worker threads hash side by side (feed-worker-pool.ts). Bytes, not a string, because a
// string crosses to a worker only as a copy, and decoding megabytes holds the event loop. A file, whose
// size is known, is read straight into one ArrayBuffer per part, each moved to its worker; a download
// arrives into one SharedArrayBuffer, which the workers read in place. Never a copy per part: that
// would hold the feed twice (issue 29: a feed of a million URLs is ~90 MB).

import { createHash, type Hash } from 'node:crypto';

/** A feed's bytes as they arrived, and their SHA-256. */
export interface FeedBytes {
  /**
   * The feed in order, in parts of whole lines cut as lineCuts cuts (a file, source-reader.ts), or in
   * one part over a SharedArrayBuffer (FeedBytesWriter); none once the parts are handed out.
   */
  parts: Uint8Array[];
  /** Bytes in the feed. */
  size: number;
  /** SHA-256 of the bytes, base64: the same feed sent again is not hashed again. */
  digest: string;
}

/** ES2024's growable SharedArrayBuffer, which Node 20 has and the project's ES2023 typings do not declare. */
interface GrowableSharedArrayBuffer extends SharedArrayBuffer {
  grow(length: number): void;
}
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as new (
  length: number,
  options: { maxByteLength: number },
) => GrowableSharedArrayBuffer;

/**
 * Gathers a feed's bytes as they arrive into one growable SharedArrayBuffer, reserved up to `maxBytes`
 * (address space only: pages are taken as it grows), and takes their SHA-256 on the way. Each chunk is
 * copied once and can be let go at once; a reader may also write straight into `room()`.
 */
export class FeedBytesWriter {
  private readonly buffer: GrowableSharedArrayBuffer;
  private readonly hash: Hash = createHash('sha256');
  private written = 0;

  constructor(readonly maxBytes: number) {
    this.buffer = new GrowableSharedArrayBuffer(0, { maxByteLength: maxBytes });
  }

  get size(): number {
    return this.written;
  }

  /** Appends `chunk`; the caller checks `maxBytes` first (a RangeError past it). */
  write(chunk: Uint8Array): void {
    this.room(chunk.length).set(chunk);
    this.wrote(chunk.length);
  }

  /** Space for the next `length` bytes (at most what `maxBytes` leaves), to be filled and then counted with `wrote`. */
  room(length: number): Uint8Array {
    const end = Math.min(this.maxBytes, this.written + length);
    if (end > this.buffer.byteLength) this.buffer.grow(end);
    return new Uint8Array(this.buffer, this.written, end - this.written);
  }

  /** Counts `length` bytes written into `room()`. */
  wrote(length: number): void {
    this.hash.update(new Uint8Array(this.buffer, this.written, length));
    this.written += length;
  }

  /** The feed as written. */
  finish(): FeedBytes {
    return { parts: [new Uint8Array(this.buffer, 0, this.written)], size: this.written, digest: this.hash.digest('base64') };
  }
}

/** ES2024's resizable ArrayBuffer, which Node 20 has and the project's ES2023 typings do not declare. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  resize(length: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

/**
 * `length` bytes in an ArrayBuffer of their own that `release` can free at once: a worker done with a
 * part of hundreds of megabytes would otherwise hold it until its next full collection, or its end.
 */
export function releasableBytes(length: number): Uint8Array {
  return new Uint8Array(new ResizableArrayBuffer(length, { maxByteLength: length }));
}

/** Frees the memory of bytes made by releasableBytes now (they are empty afterwards); others are left to the collector. */
export function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer as Partial<ResizableArrayBuffer>;
  if (buffer.resizable === true) buffer.resize!(0);
}

const LINE_FEED = 0x0a;
/** UTF-8's byte order mark, which a decoder drops at the start of a text (and only there). */
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

/**
 * Where `bytes` are cut into at most `count` pieces of about the same size and at least `minBytes` each:
 * the start of every piece, the first being 0. Every piece but the last ends with a line feed, so that
 * no line is cut; and none but the first starts with a byte order mark, which a decoder would drop at a
 * piece's start but not inside a whole feed's text. Then each piece read alone gives what its lines give
 * in the whole feed.
 */
export function lineCuts(bytes: Uint8Array, count: number, minBytes: number): number[] {
  const pieces = Math.max(1, Math.min(count, Math.floor(bytes.length / Math.max(1, minBytes))));
  const starts = [0];
  for (let k = 1; k < pieces; k++) {
    const start = lineStartFrom(bytes, Math.max(starts.at(-1)!, Math.floor((bytes.length * k) / pieces)));
    if (start >= bytes.length) break;
    starts.push(start);
  }
  return starts;
}

/**
 * The feed's bytes in at most `count` parts cut by lineCuts: a feed in one shared part is cut into
 * views of it, which the workers read in place; one read in parts already (a file) stays as it is.
 */
export function feedParts(feed: FeedBytes, count: number, minPartBytes: number): Uint8Array[] {
  const [whole] = feed.parts;
  if (feed.parts.length !== 1 || whole === undefined || !(whole.buffer instanceof SharedArrayBuffer)) return feed.parts;
  const starts = lineCuts(whole, count, minPartBytes);
  return starts.map((start, k) => whole.subarray(start, starts[k + 1] ?? whole.length));
}

/** Where the first line starting at or after `from` starts (past a line feed, no byte order mark next); the length when none does. */
export function lineStartFrom(bytes: Uint8Array, from: number): number {
  for (let position = from; position < bytes.length;) {
    const lineFeed = bytes.indexOf(LINE_FEED, position);
    if (lineFeed < 0) break;
    const start = lineFeed + 1;
    if (!BYTE_ORDER_MARK.every((byte, i) => bytes[start + i] === byte)) return start;
    position = start;
  }
  return bytes.length;
}
