import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  connectRedis,
  DEFAULT_RETRY_SCHEDULE,
  type RedisConnection,
  RedisConnectionError,
  type RedisWatch,
  retryDelayMs,
} from '../../src/server/redis-connection.ts';
import { ensureRedis, RedisRelay, waitUntil } from './redis-fixture.ts';

const relays: RedisRelay[] = [];
const connections: RedisConnection[] = [];

before(async () => {
  await ensureRedis();
});
after(async () => {
  for (const connection of connections) await connection.close();
  for (const relay of relays) await relay.cut();
});

/** A watch that starts without Redis, retrying every few milliseconds, and notes what it is told. */
function recordingWatch(events: string[]): RedisWatch {
  return {
    retry: { firstMs: 20, maxMs: 80 },
    opened: (_connection, failure) => events.push(failure === undefined ? 'opened' : 'opened without Redis'),
    reconnected: () => events.push('reconnected'),
    restored: () => {},
  };
}

async function closedRelay(): Promise<RedisRelay> {
  const relay = await RedisRelay.start();
  relays.push(relay);
  await relay.cut();
  return relay;
}

describe('retryDelayMs', () => {
  it('doubles from firstMs up to maxMs, a random half taken off', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const ceiling = Math.min(60_000, 1000 * 2 ** attempt);
        const delay = retryDelayMs(attempt, DEFAULT_RETRY_SCHEDULE, random);
        assert.ok(delay >= ceiling / 2 && delay <= ceiling, `${delay} ms after attempt ${attempt}`);
      }),
    );
    assert.deepEqual(
      [0, 1, 2, 5, 6, 40].map((attempt) => retryDelayMs(attempt, DEFAULT_RETRY_SCHEDULE, 0.999999)),
      [1000, 2000, 4000, 32_000, 60_000, 60_000],
    );
  });
});

describe('connectRedis', () => {
  it('rejects when Redis does not answer, unless the watch says to start without it', { timeout: 10_000 }, async () => {
    const relay = await closedRelay();
    await assert.rejects(
      connectRedis(relay.url, 1000),
      (error: unknown) => error instanceof RedisConnectionError && error.reason === 'unavailable',
    );
    const events: string[] = [];
    const connection = await connectRedis(relay.url, 1000, recordingWatch(events));
    connections.push(connection);
    assert.equal(connection.ready, false);
    assert.deepEqual(events, ['opened without Redis']);
    await assert.rejects(connection.client.ping(), 'commands fail at once meanwhile');

    await relay.restore();
    await waitUntil(() => connection.ready, 'the connection reaches Redis on its schedule');
    assert.equal((await connection.client.ping()).toString(), 'PONG');
    assert.deepEqual(events, ['opened without Redis', 'reconnected']);
  });

  it('refuses a URL that is none even when told to start without Redis', async () => {
    await assert.rejects(
      connectRedis('http://127.0.0.1:6379', 1000, recordingWatch([])),
      (error: unknown) => error instanceof RedisConnectionError && error.reason === 'invalid-url',
    );
  });

  it('stops trying once closed', { timeout: 10_000 }, async () => {
    const relay = await closedRelay();
    const events: string[] = [];
    const connection = await connectRedis(relay.url, 1000, recordingWatch(events));
    let attempts = 0;
    const connect = connection.client.connect.bind(connection.client);
    connection.client.connect = () => {
      attempts += 1;
      return connect();
    };
    connection.retryNow();
    assert.equal(attempts, 1, 'an attempt is made at once when asked');
    await connection.close();
    await relay.restore();
    connection.retryNow();
    assert.equal(attempts, 1, 'none once closed');
    assert.equal(connection.client.isOpen, false);
    assert.deepEqual(events, ['opened without Redis']);
  });
});
