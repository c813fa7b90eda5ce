import type { Duration } from '@bufbuild/protobuf/wkt';

/**
 * A google.protobuf.Duration from a peer in milliseconds, at most `maxMs`; undefined when the field is
 * absent. Negative, or not a number at all, means 0. The bound is the caller's: a duration on the wire
 * can name 2^63 seconds, and a wait or a cache lifetime that long would be a server's to impose.
 */
export function durationToMs(duration: Pick<Duration, 'seconds' | 'nanos'> | undefined, maxMs: number): number | undefined {
  if (duration === undefined) return undefined;
  const ms = Number(duration.seconds) * 1000 + Math.floor(duration.nanos / 1e6);
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, maxMs) : 0;
}

/**
 * Milliseconds as a google.protobuf.Duration (whole milliseconds): a plain message object, as `create`
 * would make it, without its reflection (every search answer carries one).
 */
export function durationFromMs(ms: number): Duration {
  const whole = Math.max(0, Math.round(ms));
  return { $typeName: 'google.protobuf.Duration', seconds: BigInt(Math.floor(whole / 1000)), nanos: (whole % 1000) * 1e6 };
}
