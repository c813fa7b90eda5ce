import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RedisClient } from '../../../src/server/redis/redis-clients.ts';
import type { RedisConnection } from '../../../src/server/redis/redis-connection.ts';
import { RedisMonitor } from '../../../src/server/redis/redis-monitor.ts';
import { RecordingLogger } from '../../support/recording-logger.ts';

/** A connection as the monitor sees it: whether it answers, and whether it was asked to try now. */
function fakeConnection(): RedisConnection & { ready: boolean; nudged: number } {
  return {
    client: undefined as unknown as RedisClient,
    label: 'redis://127.0.0.1:6379',
    ready: false,
    nudged: 0,
    retryNow() {
      this.nudged += 1;
    },
    close: async () => {},
  };
}

describe('RedisMonitor', () => {
  it('counts and logs what the connections of each part go through, for /metrics', async () => {
    const log = new RecordingLogger();
    const monitor = new RedisMonitor(log);
    const [lists, keys] = [fakeConnection(), fakeConnection()];
    monitor.watch('lists').opened(lists, new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    monitor.watch('ohttp-keys').opened(keys, undefined);
    assert.deepEqual(log.messages('warn'), [
      'lists: Redis at redis://127.0.0.1:6379 does not answer (connect ECONNREFUSED 127.0.0.1:6379); starting without it, trying again after 1 s, then less often, up to every 60 s',
    ]);
    let text = await monitor.metrics.metrics();
    assert.match(text, /^sbkit_redis_available\{part="lists"\} 0$/m);
    assert.match(text, /^sbkit_redis_reconnects_total\{part="lists"\} 0$/m);

    lists.ready = true;
    monitor.watch('lists').reconnected(lists);
    assert.equal(keys.nudged, 1, 'Redis back for one part: the others try at once');
    assert.equal(lists.nudged, 0);
    monitor.watch('lists').restored('se-4b', 3);
    text = await monitor.metrics.metrics();
    assert.match(text, /^sbkit_redis_available\{part="lists"\} 1$/m);
    assert.match(text, /^sbkit_redis_reconnects_total\{part="lists"\} 1$/m);
    assert.match(text, /^sbkit_redis_history_restored_total\{list="se-4b"\} 1$/m);
    assert.match(log.messages('warn').at(-1)!, /^list se-4b: Redis had lost its history of versions; wrote back 3 versions held here$/);
  });
});
