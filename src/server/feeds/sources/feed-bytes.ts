// A feed as read (source-reader.ts): its bytes as they arrived, never decoded on the main thread, and
// cut at line ends into parts that worker threads hash side by side (feed-worker-pool.ts). Bytes, not a
// string, because a string crosses to a worker only as a copy, and decoding megabytes holds the event loop.

/** A feed's bytes as they arrived, and their SHA-256. */
export interface FeedBytes {
  chunks: Uint8Array[];
  /** Bytes in all chunks. */
  size: number;
  /** SHA-256 of the bytes, base64: the same feed sent again is not hashed again. */
  digest: string;
}

const LINE_FEED = 0x0a;
/** UTF-8's byte order mark, which a decoder drops at the start of a text (and only there). */
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

/**
 * The feed's bytes in at most `count` parts of about the same size and at least `minPartBytes` each,
 * each in an ArrayBuffer of its own (a worker takes it whole). Each part but the last ends with a line
 * feed, so that no line is cut; and none but the first starts with a byte order mark, which a decoder
 * would drop at a part's start but not inside a whole feed's text. Then each part read alone gives what
 * its lines give in the whole feed.
 */
export function feedParts(feed: FeedBytes, count: number, minPartBytes: number): Uint8Array[] {
  const parts = Math.max(1, Math.min(count, Math.floor(feed.size / Math.max(1, minPartBytes))));
  const starts = [0];
  for (let k = 1; k < parts; k++) {
    const start = lineStartFrom(feed, Math.max(starts.at(-1)!, Math.floor((feed.size * k) / parts)));
    if (start >= feed.size) break;
    starts.push(start);
  }
  return starts.map((start, k) => copyOf(feed, start, starts[k + 1] ?? feed.size));
}

/** Where the first line starting at or after `from` starts (past a line feed, no byte order mark next); the size when none does. */
function lineStartFrom(feed: FeedBytes, from: number): number {
  let base = 0;
  let position = from;
  for (const chunk of feed.chunks) {
    const end = base + chunk.length;
    while (position < end) {
      const lineFeed = chunk.indexOf(LINE_FEED, position - base);
      if (lineFeed < 0) break;
      const start = base + lineFeed + 1;
      if (!BYTE_ORDER_MARK.every((byte, i) => byteAt(feed, start + i) === byte)) return start;
      position = start;
    }
    base = end;
    position = Math.max(position, base);
  }
  return feed.size;
}

function byteAt(feed: FeedBytes, at: number): number | undefined {
  let base = 0;
  for (const chunk of feed.chunks) {
    if (at < base + chunk.length) return chunk[at - base];
    base += chunk.length;
  }
  return undefined;
}

/** Bytes [start, end) of the feed, in a new ArrayBuffer. */
function copyOf(feed: FeedBytes, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  let base = 0;
  for (const chunk of feed.chunks) {
    const from = Math.max(start, base);
    const to = Math.min(end, base + chunk.length);
    if (from < to) out.set(chunk.subarray(from - base, to - base), from - start);
    base += chunk.length;
    if (base >= end) break;
  }
  return out;
}
