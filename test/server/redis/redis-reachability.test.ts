import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RedisReachability } from '../../../src/server/redis/redis-reachability.ts';
import { RecordingLogger } from '../../support/recording-logger.ts';

describe('RedisReachability', () => {
  it('tells the log once when Redis fails (a warning) and once when it answers again', () => {
    const log = new RecordingLogger();
    const reachability = new RedisReachability(log);
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
    const reachability = new RedisReachability(log, false);
    reachability.failed('failed');
    reachability.answered('answers');
    assert.deepEqual(log.messages(), ['answers']);
  });
});
