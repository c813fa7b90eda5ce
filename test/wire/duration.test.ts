import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import { durationFromMs, durationToMs } from '../../src/wire/duration.ts';

describe('durations', () => {
  it('read seconds and nanoseconds as milliseconds', () => {
    assert.equal(durationToMs(create(DurationSchema, { seconds: 300n, nanos: 500_000_000 })), 300_500);
    assert.equal(durationToMs(undefined), undefined);
    assert.equal(durationToMs(create(DurationSchema, { seconds: -5n })), 0);
  });

  it('round-trip whole milliseconds', () => {
    for (const ms of [0, 1, 999, 1000, 1_800_000, 86_400_000]) assert.equal(durationToMs(durationFromMs(ms)), ms);
  });
});
