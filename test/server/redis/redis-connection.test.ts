import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  connectRedis,
  DEFAULT_RETRY_SCHEDULE,
  type RedisConnection,
  RedisConnectionError,
  type RedisWatch,
} from '../../../src/server/redis/redis-connection.ts';
import { backoffMs } from '../../../src/time/backoff.ts';
import { ensureRedis, RedisRelay } from '../redis-fixture.ts';
import { until } from '../../support/waiting.ts';

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

describe('DEFAULT_RETRY_SCHEDULE', () => {
  it('doubles from 1 s up to a minute, a random half taken off', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (failures, random) => {
        const ceiling = Math.min(60_000, 1000 * 2 ** (failures - 1));
        const delay = backoffMs(DEFAULT_RETRY_SCHEDULE, failures, random);
        assert.ok(delay >= ceiling / 2 && delay <= ceiling, `${delay} ms after ${failures} failures`);
      }),
    );
    assert.deepEqual(
      [1, 2, 3, 6, 7, 41].map((failures) => backoffMs(DEFAULT_RETRY_SCHEDULE, failures, 0)),
      [1000, 2000, 4000, 32_000, 60_000, 60_000],
    );
    assert.equal(backoffMs(DEFAULT_RETRY_SCHEDULE, 3, 1), 2000);
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
    await assert.rejects(connection.client.get('sbkit-test:absent'), 'commands fail at once meanwhile');

    await relay.restore();
    await until(5000, 'the connection reaches Redis on its schedule', () => connection.ready);
    assert.equal(await connection.client.get('sbkit-test:absent'), null);
    assert.deepEqual(events, ['opened without Redis', 'reconnected']);
  });

  it('gives up an attempt on a server that accepts and never answers, within the timeout', { timeout: 10_000 }, async () => {
    // node-redis bounds the TCP connection, not the handshake after it: without the bound, for ever.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      // Read (and drop) what the client says, so that its hanging up is seen.
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `redis://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const startedAt = performance.now();
      await assert.rejects(
        connectRedis(url, 300),
        (error: unknown) =>
          error instanceof RedisConnectionError && error.reason === 'unavailable' && /no answer within 0\.3 s/.test(error.message),
      );
      assert.ok(performance.now() - startedAt < 3000);
      await until(5000, 'the attempt hung up', () => sockets.size > 0 && [...sockets].every((socket) => socket.readableEnded));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
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
