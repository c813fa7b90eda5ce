import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RedisReachability, SAME_OUTAGE_MS } from '../../../src/server/redis/redis-reachability.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { RecordingLogger } from '../../support/recording-logger.ts';

describe('RedisReachability', () => {
  it('tells the log once when Redis fails (a warning) and once when it answers again', () => {
    const log = new RecordingLogger();
    const reachability = new RedisReachability(log, true, new FakeClock());
    reachability.answered('answers again');
    reachability.failed('failed 1');
    reachability.failed('failed 2');
    reachability.answered('answers again');
    reachability.answered('answers again, still');
    assert.deepEqual(
      log.lines.map(({ level, message }) => `${level} ${message}`),
      ['warn failed 1', 'info answers again'],
    );
  });

  it('starts unreachable when told so: the first answer is news', () => {
    const log = new RecordingLogger();
    const reachability = new RedisReachability(log, false, new FakeClock());
    reachability.failed('failed');
    reachability.answered('answers');
    assert.deepEqual(log.messages(), ['answers']);
  });

  it('tells a Redis that answers and fails by turns (a Cluster node away) once, not at every turn', () => {
    const log = new RecordingLogger();
    const clock = new FakeClock();
    const reachability = new RedisReachability(log, true, clock);
    reachability.failed('failed');
    for (let i = 0; i < 1000; i++) {
      clock.advance(5);
      reachability.answered('answers again');
      reachability.failed('failed');
    }
    assert.deepEqual(log.messages(), ['failed', 'answers again'], 'one outage, however many turns');
    clock.advance(SAME_OUTAGE_MS);
    reachability.answered('answers again');
    assert.equal(log.lines.length, 2, 'it answered all along, as told');
  });

  it('tells a failure after the window as a new outage, with the turns left untold', () => {
    const log = new RecordingLogger();
    const clock = new FakeClock();
    const reachability = new RedisReachability(log, true, clock);
    reachability.failed('failed');
    reachability.answered('answers again');
    reachability.failed('failed');
    reachability.failed('failed');
    clock.advance(SAME_OUTAGE_MS - 1);
    reachability.failed('failed');
    assert.equal(log.lines.length, 2, 'still the same outage');
    clock.advance(1);
    reachability.failed('failed again');
    reachability.answered('answers again');
    assert.deepEqual(log.messages(), [
      'failed',
      'answers again',
      'failed again (it also failed 3 times since the last report, answering between)',
      'answers again',
    ]);
  });
});
