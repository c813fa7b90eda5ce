// The fault: two `sbkit serve` instances share their lists through Redis, and Redis restarts empty (no
// persistence) or is flushed. The next publication used to start each list's history over with one
// version, so that every client holding a version well inside keepVersions got the whole list again
// instead of a diff (13 full updates in a 40 s run), and nothing said so. And an instance could not
// start while Redis was down (exit 2). Now the instances write back the history they hold, a client
// at any kept version gets a diff whose checksum verifies, each write-back is logged and counted, and
// an instance starts without Redis, says 503 on /readyz, and joins once Redis answers.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import { createClient } from 'redis';
import type { Clock } from '../../src/time/clock.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import * as v5 from '../../src/proto/v5.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { type Service, startService } from '../../src/server/service.ts';
import { PrivateRedis, uniqueKeyPrefix } from '../server/redis-fixture.ts';
import { until } from '../support/waiting.ts';

const TOKEN = '7d1e94c0b2a8f3650e9c41d7a2b85f36';
const MINIMUM_WAIT_MS = 60_000;
const TEST_TIMEOUT = { timeout: 20_000 };
/** Five versions of one feed: each a few entries away from the one before. */
const VERSIONS = [
  ['a.example/', 'b.example/', 'c.example/'],
  ['a.example/', 'b.example/', 'c.example/', 'd.example/'],
  ['b.example/', 'c.example/', 'd.example/', 'e.example/'],
  ['b.example/', 'c.example/', 'd.example/', 'e.example/', 'f.example/'],
  ['c.example/', 'd.example/', 'e.example/', 'f.example/', 'g.example/'],
];

let dir: string;
let redis: PrivateRedis;
const cleanups: (() => Promise<unknown> | void)[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-redis-restart-'));
  redis = await PrivateRedis.start();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

/** `sbkit serve --config <feed's config> --redis <the private Redis>`, as the CLI assembles it. */
async function instance(feed: string, keyPrefix: string, logs: string[], loadControl: boolean): Promise<Service> {
  const file = join(dir, `${feed}.json`);
  const config = parseServerConfig(
    {
      minimumWaitSeconds: MINIMUM_WAIT_MS / 1000,
      keepVersions: 5,
      adminToken: TOKEN,
      lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: `${feed}.txt`, format: 'expressions' }] }],
    },
    dir,
  );
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config },
    redis: { url: redis.url, keyPrefix },
    loadControl,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 86_400_000, overlapMs: 3_600_000 },
    log: (message) => logs.push(message),
  });
  cleanups.push(() => service.close());
  return service;
}

async function writeFeed(feed: string, expressions: readonly string[]): Promise<void> {
  await writeFile(join(dir, `${feed}.txt`), `${expressions.join('\n')}\n`);
}

/**
 * The operator's reload; true when what it read is served (false while Redis cannot take it). Served, not
 * published: the file watch may have published the feed's change before the reload read it.
 */
async function reload(service: Service): Promise<boolean> {
  const response = await fetch(`${service.url}/admin/reload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(5000),
  });
  const body = (await response.json()) as { reloaded: { served: boolean }[] };
  return body.reloaded.every((report) => report.served);
}

async function currentList(base: string): Promise<v5.HashList> {
  const response = await fetch(`${base}/v5/hashLists:batchGet?names=se-4b`, { signal: AbortSignal.timeout(5000) });
  return fromBinary(v5.BatchGetHashListsResponseSchema, Buffer.from(await response.arrayBuffer())).hashLists[0]!;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Redis loses every key: restarted without persistence, or flushed by an operator while the instances stay connected. */
const LOSSES: [string, () => Promise<void>][] = [
  [
    'restarts empty',
    async () => {
      await redis.stop();
      await redis.restart();
    },
  ],
  [
    'is flushed',
    async () => {
      const operator = createClient({ url: redis.url });
      await operator.connect();
      await operator.flushAll();
      await operator.close();
    },
  ],
];

describe('two instances on one Redis that loses every key', () => {
  for (const [loss, lose] of LOSSES) {
    it(
      `${loss}: a client at any kept version still gets a diff after the next publication, its checksum verified`,
      TEST_TIMEOUT,
      async () => {
        const keyPrefix = uniqueKeyPrefix();
        const slug = loss.replace(' ', '-');
        const [fa, fb] = [`a-${slug}`, `b-${slug}`] as const;
        await writeFeed(fa, VERSIONS[0]!);
        await writeFeed(fb, VERSIONS[0]!);
        // Without load control: the test polls both instances far more often than LC lets one client.
        const a = await instance(fa, keyPrefix, [], false);
        const b = await instance(fb, keyPrefix, [], false);
        const client = new RecordingClient(a.url);
        cleanups.push(() => client.close());

        await client.update(); // the first version, in full
        for (const version of VERSIONS.slice(1, 4)) {
          await writeFeed(fa, version);
          assert.equal(await reload(a), true);
        }
        await client.update(); // the first version → the fourth: a diff
        await until(5000, 'B serves A’s', async () => hex((await currentList(b.url)).version) === hex((await currentList(a.url)).version));

        await lose();

        // B's feed changes, and B publishes it as soon as Redis takes it.
        await writeFeed(fb, VERSIONS[4]!);
        await until(10_000, 'B publishes to the restarted Redis', () => reload(b));
        const published = hex((await currentList(b.url)).version);
        await until(5000, 'A serves what B published', async () => hex((await currentList(a.url)).version) === published);

        await client.update();
        assert.deepEqual(
          client.answers,
          [false, true, true],
          'after the restart, the client at the fourth version gets a diff, not the whole list',
        );
        const info = client.listInfo();
        assert.equal(info.entries, VERSIONS[4]!.length);
        assert.equal(info.checksum, hex((await currentList(a.url)).sha256Checksum), 'the checksum verified');
        // Whichever instance found the loss first wrote the history back, and counted it.
        assert.match((await metrics(a.url)) + (await metrics(b.url)), /sbkit_redis_history_restored_total\{list="se-4b"\} [1-9]/);
        // Any kept version, not only the newest: the first one gets a diff too, from either instance.
        for (const base of [a.url, b.url]) {
          const fromFirst = await hashListFrom(base, client.firstVersion!);
          assert.equal(fromFirst.partialUpdate, true);
          assert.equal(hex(fromFirst.sha256Checksum), info.checksum);
        }
      },
    );
  }
});

describe('an instance started while Redis is down', () => {
  it('serves its own lists, is not ready, then joins the shared lists once Redis answers', TEST_TIMEOUT, async () => {
    const keyPrefix = uniqueKeyPrefix();
    await redis.stop();
    await writeFeed('c1', VERSIONS[2]!);
    const logs: string[] = [];
    const c = await instance('c1', keyPrefix, logs, true);

    assert.deepEqual(c.lists, [{ name: 'se-4b', entries: VERSIONS[2]!.length }], 'its own feed, served from memory');
    const served = await currentList(c.url);
    const notReady = await fetch(`${c.url}/readyz`);
    assert.equal(notReady.status, 503);
    const body = (await notReady.json()) as { status: string; reason: string };
    assert.equal(body.status, 'not-ready');
    assert.match(body.reason, /have not been reached since start/);
    assert.equal((await fetch(`${c.url}/healthz`)).status, 200, 'alive all along');
    assert.match(await metrics(c.url), /sbkit_redis_available\{part="lists"\} 0/);
    assert.match(logs.join('\n'), /lists: Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer .*starting without it/);

    await redis.restart();
    await until(10_000, '/readyz says ready', async () => (await fetch(`${c.url}/readyz`)).status === 200);
    // The others follow the first part to reach Redis.
    await until(5000, 'every part reaches Redis', async () => !/sbkit_redis_available\{[^}]*\} 0/.test(await metrics(c.url)));
    assert.match(await metrics(c.url), /sbkit_redis_reconnects_total\{part="lists"\} [1-9]/);
    // The list it served is the shared one now: the current version in Redis (a version names its snapshot).
    const store = createClient({ url: redis.url });
    await store.connect();
    try {
      const history = await store.lRange(`${keyPrefix}list:{se-4b}:history`, 0, -1);
      assert.deepEqual(history, [hex(served.version.subarray(1, 17))]);
    } finally {
      await store.close();
    }
  });
});

async function metrics(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
}

async function hashListFrom(base: string, version: Uint8Array): Promise<v5.HashList> {
  const response = await fetch(`${base}/v5/hashList/se-4b?version=${Buffer.from(version).toString('base64url')}`, {
    signal: AbortSignal.timeout(5000),
  });
  return fromBinary(v5.HashListSchema, Buffer.from(await response.arrayBuffer()));
}

/**
 * Our client in local mode, updating se-4b from `base` through a recorder on loopback that notes whether
 * each list update was partial; its clock jumps past the minimum wait between updates.
 */
class RecordingClient {
  readonly answers: boolean[] = [];
  firstVersion: Uint8Array | undefined;
  private readonly recorder: Server;
  private client: SafeBrowsingClient | undefined;
  private now = Date.now();

  constructor(private readonly base: string) {
    this.recorder = createHttpServer((request, response) => void this.forward(request, response));
  }

  async update(): Promise<void> {
    if (this.client === undefined) {
      await new Promise<void>((resolve) => this.recorder.listen(0, '127.0.0.1', resolve));
      const address = this.recorder.address();
      if (address === null || typeof address === 'string') throw new Error('the recorder has no port');
      const clock: Clock = {
        now: () => this.now,
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      };
      this.client = new SafeBrowsingClient({
        server: `http://127.0.0.1:${address.port}`,
        protocol: 'v5',
        mode: 'local',
        lists: ['se-4b'],
        clock,
      });
    }
    const summary = await this.client.update();
    assert.equal(summary.error, undefined);
    assert.deepEqual(summary.failed, [], 'every update verified its checksum');
    this.firstVersion ??= Buffer.from(this.listInfo().version, 'base64');
    this.now += MINIMUM_WAIT_MS + 1000;
  }

  listInfo(): { entries: number; checksum: string; version: string } {
    return this.client!.listInfo().find((list) => list.name === 'se-4b')!;
  }

  async close(): Promise<void> {
    await this.client?.close();
    if (this.recorder.listening) await new Promise<void>((resolve) => this.recorder.close(() => resolve()));
  }

  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const answer = await fetch(`${this.base}${request.url}`, {
      headers: { 'user-agent': request.headers['user-agent'] ?? 'sbkit-test' },
      signal: AbortSignal.timeout(5000),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (request.url?.includes('hashLists:batchGet') === true && answer.status === 200) {
      this.answers.push(fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists[0]!.partialUpdate);
    }
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    response.end(body);
  }
}
