import type { Duration } from '@bufbuild/protobuf/wkt';

/** A google.protobuf.Duration in milliseconds; undefined when the field is absent. Negative means 0. */
export function durationToMs(duration: Duration | undefined): number | undefined {
  if (duration === undefined) return undefined;
  const ms = Number(duration.seconds) * 1000 + Math.floor(duration.nanos / 1e6);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * Milliseconds as a google.protobuf.Duration (whole milliseconds): a plain message object, as `create`
 * would make it, without its reflection (every search answer carries one).
 */
export function durationFromMs(ms: number): Duration {
  const whole = Math.max(0, Math.round(ms));
  return { $typeName: 'google.protobuf.Duration', seconds: BigInt(Math.floor(whole / 1000)), nanos: (whole % 1000) * 1e6 };
}
