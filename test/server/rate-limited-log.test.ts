import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rateLimitedLog } from '../../src/server/rate-limited-log.ts';
import { FakeClock } from '../support/fake-clock.ts';

describe('rateLimitedLog', () => {
  it('writes at most maxLines a window, and says how many it left out', () => {
    const clock = new FakeClock();
    const lines: string[] = [];
    const log = rateLimitedLog((line) => lines.push(line), clock, 3, 60_000);
    for (let i = 0; i < 1000; i++) log(`line ${i}`);
    assert.deepEqual(lines, ['line 0', 'line 1', 'line 2']);
    clock.advance(60_000);
    log('later');
    assert.deepEqual(lines.at(-1), 'later (997 similar lines left out before this one)');
    log('next');
    assert.equal(lines.at(-1), 'next');
  });
});
