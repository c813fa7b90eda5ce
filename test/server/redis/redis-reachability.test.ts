import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RedisReachability } from '../../../src/server/redis/redis-reachability.ts';

describe('RedisReachability', () => {
  it('tells the log once when Redis fails and once when it answers again', () => {
    const logged: string[] = [];
    const reachability = new RedisReachability((message) => logged.push(message));
    reachability.answered('answers again');
    reachability.failed('failed 1');
    reachability.failed('failed 2');
    reachability.answered('answers again');
    reachability.answered('answers again, still');
    assert.deepEqual(logged, ['failed 1', 'answers again']);
  });

  it('starts unreachable when told so: the first answer is news', () => {
    const logged: string[] = [];
    const reachability = new RedisReachability((message) => logged.push(message), false);
    reachability.failed('failed');
    reachability.answered('answers');
    assert.deepEqual(logged, ['answers']);
  });
});
