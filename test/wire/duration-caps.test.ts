import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { DurationSchema } from '@bufbuild/protobuf/wkt';
import { durationToMs } from '../../src/wire/duration.ts';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../src/wire/duration-caps.ts';

const DAY = 24 * 60 * 60_000;
/** What a hostile server may send: 2^63 − 1 seconds, the longest Duration there is. */
const LONGEST = create(DurationSchema, { seconds: 2n ** 63n - 1n, nanos: 999_999_999 });

describe('the caps on durations a peer sends', () => {
  it('keep no search answer past 24 hours (SB-8)', () => {
    assert.equal(MAX_CACHE_DURATION_MS, DAY);
    assert.equal(durationToMs(LONGEST, MAX_CACHE_DURATION_MS), DAY);
  });

  it('obey no minimum wait past a day, the cap of RF-4 (RF-3, SB-12)', () => {
    assert.equal(MAX_MINIMUM_WAIT_MS, DAY);
    assert.equal(durationToMs(LONGEST, MAX_MINIMUM_WAIT_MS), DAY);
  });
});
