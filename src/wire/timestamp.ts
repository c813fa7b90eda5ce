import type { Timestamp } from '@bufbuild/protobuf/wkt';

/**
 * The time from `nowMs` until a google.protobuf.Timestamp from a peer, in milliseconds, at most `maxMs`;
 * undefined when the field is absent. A moment already past, or no number at all, means 0. Web Risk says
 * until when (`expire_time`, `recommended_next_diff`) where Safe Browsing says for how long; the bound is
 * the caller's, as durationToMs's: a Timestamp can name the year 9999, and a wait or a cache lifetime
 * that long would be a server's to impose.
 */
export function msUntilTimestamp(
  timestamp: Pick<Timestamp, 'seconds' | 'nanos'> | undefined,
  nowMs: number,
  maxMs: number,
): number | undefined {
  if (timestamp === undefined) return undefined;
  const ms = Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1e6) - nowMs;
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, maxMs) : 0;
}
