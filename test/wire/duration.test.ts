import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import { durationFromMs, durationToMs } from '../../src/wire/duration.ts';

const DAY = 86_400_000;

describe('durations', () => {
  it('read seconds and nanoseconds as milliseconds', () => {
    assert.equal(durationToMs(create(DurationSchema, { seconds: 300n, nanos: 500_000_000 }), DAY), 300_500);
    assert.equal(durationToMs(undefined, DAY), undefined);
    assert.equal(durationToMs(create(DurationSchema, { seconds: -5n }), DAY), 0);
    assert.equal(durationToMs(create(DurationSchema, { seconds: 0n, nanos: -999_999_999 }), DAY), 0);
  });

  it("cut a peer's duration to the caller's bound, up to the 2^63 seconds a Duration can name", () => {
    assert.equal(durationToMs(create(DurationSchema, { seconds: 1_000_000_000n }), DAY), DAY);
    assert.equal(durationToMs(create(DurationSchema, { seconds: 2n ** 63n - 1n, nanos: 999_999_999 }), DAY), DAY);
    assert.equal(durationToMs(create(DurationSchema, { seconds: 86_400n }), DAY), DAY);
    assert.equal(durationToMs(create(DurationSchema, { seconds: 86_399n }), DAY), DAY - 1000);
  });

  it('round-trip whole milliseconds', () => {
    for (const ms of [0, 1, 999, 1000, 1_800_000, 86_400_000]) assert.equal(durationToMs(durationFromMs(ms), DAY), ms);
  });
});
