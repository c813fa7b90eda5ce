import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FIRST_RETRY_MS, RETRY_JITTER, retryDelayMs } from '../../../../src/server/feeds/sources/source-backoff.ts';

const HOUR = 3_600_000;

describe('retryDelayMs', () => {
  it('doubles from the first wait up to the refresh interval', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map((failures) => retryDelayMs(failures, HOUR, 0)),
      [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, HOUR],
    );
    assert.equal(retryDelayMs(1000, HOUR, 0), HOUR, 'no overflow after many failures');
  });

  it('shortens each wait by up to a quarter at random', () => {
    assert.equal(retryDelayMs(1, HOUR, 0.5), FIRST_RETRY_MS * (1 - RETRY_JITTER / 2));
    assert.equal(retryDelayMs(8, HOUR, 0.5), HOUR * (1 - RETRY_JITTER / 2));
  });

  it('waits at least what the server asked, never past the refresh interval', () => {
    assert.equal(retryDelayMs(1, HOUR, 0, 600_000), 600_000);
    assert.equal(retryDelayMs(1, HOUR, 0, 10 * HOUR), HOUR);
    assert.equal(retryDelayMs(3, HOUR, 0, 1_000), 120_000);
  });

  it('stays within (1 - jitter) of the nominal wait and the refresh interval, whatever the numbers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 60_000, max: 7 * 24 * HOUR }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 30 * 24 * HOUR }), { nil: undefined }),
        (failures, refreshMs, random, retryAfterMs) => {
          const wait = retryDelayMs(failures, refreshMs, random, retryAfterMs);
          const nominal = Math.min(refreshMs, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 30));
          assert.ok(wait <= refreshMs);
          assert.ok(wait >= Math.floor(nominal * (1 - RETRY_JITTER)));
          if (retryAfterMs !== undefined) assert.ok(wait >= Math.min(retryAfterMs, refreshMs));
        },
      ),
    );
  });
});
