import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import type { Clock } from '../../src/time/clock.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import * as v5 from '../../src/proto/v5.ts';
import { FeedLists, type ListLoadReport } from '../../src/server/feeds/feed-lists.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { RedisSnapshotStore } from '../../src/server/redis/redis-snapshot-store.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from './redis-fixture.ts';

const MINIMUM_WAIT_MS = 60_000;
const TEST_TIMEOUT = { timeout: 30_000 };
const X = ['phishing.x.example/', 'evil.example/login', 'shared.example/'];
const Y = ['shared.example/', 'evil.example/login', 'new.y.example/', 'more.y.example/a'];
const Z = ['shared.example/', 'z.example/'];

let dir: string;
const prefixes: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

before(async () => {
  await ensureRedis();
  dir = await mkdtemp(join(tmpdir(), 'sbkit-redis-instances-'));
});
after(async () => {
  // Servers and feeds first, then their stores, then Redis keys.
  for (const cleanup of cleanups.reverse()) await cleanup();
  for (const prefix of prefixes) await deleteKeys(prefix);
  await rm(dir, { recursive: true, force: true });
});

/** One server instance: its feeds from `feed` (a file in the test folder, maybe missing), its store, its HTTP server. */
interface Instance {
  url: string;
  feeds: FeedLists;
  store: RedisSnapshotStore;
  reports: ListLoadReport[];
}

async function instance(feed: string, keyPrefix: string): Promise<Instance> {
  const config = parseServerConfig(
    {
      minimumWaitSeconds: MINIMUM_WAIT_MS / 1000,
      keepVersions: 5,
      lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: feed, format: 'expressions' }] }],
    },
    dir,
  );
  const store = await RedisSnapshotStore.connect({ url: REDIS_URL, keyPrefix, refreshMs: 0, timeoutMs: 5000 });
  cleanups.push(() => store.close());
  const reports: ListLoadReport[] = [];
  const feeds = await FeedLists.start(config, (report) => reports.push(report), store);
  cleanups.push(() => feeds.close());
  const server: SafeBrowsingServer = createServer({ catalog: feeds.catalog, port: 0, settings: { minimumWaitMs: MINIMUM_WAIT_MS } });
  const url = await server.listen();
  cleanups.push(() => server.close());
  return { url, feeds, store, reports };
}

async function writeFeed(name: string, expressions: readonly string[]): Promise<void> {
  await writeFile(join(dir, name), `${expressions.join('\n')}\n`);
}

function namespace(): string {
  const prefix = uniqueKeyPrefix();
  prefixes.push(prefix);
  return prefix;
}

async function get(base: string, path: string): Promise<Buffer> {
  const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5000) });
  assert.equal(response.status, 200, `${base}${path}: ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

const batchGet = (base: string) => get(base, '/v5/hashLists:batchGet?names=se-4b');
const hashListFrom = (base: string, version: Uint8Array) =>
  get(base, `/v5/hashList/se-4b?version=${Buffer.from(version).toString('base64url')}`);
const currentList = async (base: string) => fromBinary(v5.BatchGetHashListsResponseSchema, await batchGet(base)).hashLists[0]!;

describe('two server instances sharing one Redis', () => {
  it('an instance that published nothing serves the same versions, checksums and diffs', TEST_TIMEOUT, async () => {
    const keyPrefix = namespace();
    await writeFeed('a1.txt', X);
    const a = await instance('a1.txt', keyPrefix);
    const versionX = (await currentList(a.url)).version;
    await writeFeed('a1.txt', Y);
    await a.feeds.reload();

    // B's feed is missing: it publishes nothing and serves what A published.
    const b = await instance('missing.txt', keyPrefix);
    assert.equal(b.reports.length, 1);
    assert.equal(b.reports[0]!.published, false, 'a failing source keeps the list that is in service');

    assert.deepEqual(await batchGet(b.url), await batchGet(a.url), 'byte-identical batchGet answers');
    const fromX = await hashListFrom(a.url, versionX);
    assert.deepEqual(await hashListFrom(b.url, versionX), fromX, 'byte-identical diffs from the old version');
    const diff = fromBinary(v5.HashListSchema, fromX);
    assert.equal(diff.partialUpdate, true);
    assert.deepEqual(diff.sha256Checksum, (await currentList(a.url)).sha256Checksum);
  });

  it('content published later by another instance becomes current on both, with the same diffs', TEST_TIMEOUT, async () => {
    const keyPrefix = namespace();
    await writeFeed('a2.txt', X);
    const a = await instance('a2.txt', keyPrefix);
    await writeFeed('a2.txt', Y);
    await a.feeds.reload();
    const versionY = (await currentList(a.url)).version;

    // B's feed still has X: B starts later and publishes it, which makes X the newest snapshot.
    await writeFeed('b2.txt', X);
    const b = await instance('b2.txt', keyPrefix);
    await a.store.refresh();
    const [listA, listB] = [await currentList(a.url), await currentList(b.url)];
    assert.deepEqual(listB.version, listA.version);
    assert.deepEqual(listB.sha256Checksum, listA.sha256Checksum);
    assert.notDeepEqual(listA.version, versionY);
    assert.deepEqual(await batchGet(b.url), await batchGet(a.url));
    assert.deepEqual(await hashListFrom(b.url, versionY), await hashListFrom(a.url, versionY));
    assert.equal(fromBinary(v5.HashListSchema, await hashListFrom(b.url, versionY)).partialUpdate, true);
  });

  it(
    'our client updating through a round-robin balancer, from A and B in turn, ends with their list and checksum',
    TEST_TIMEOUT,
    async () => {
      const keyPrefix = namespace();
      await writeFeed('a3.txt', X);
      const a = await instance('a3.txt', keyPrefix);
      const b = await instance('b3.txt', keyPrefix); // no feed yet: serves A's
      const balancer = await RoundRobin.start([a.url, b.url]);
      cleanups.push(() => balancer.close());
      let now = Date.now();
      const clock: Clock = {
        now: () => now,
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      };
      const client = new SafeBrowsingClient({ server: balancer.url, protocol: 'v5', mode: 'local', lists: ['se-4b'], clock });
      cleanups.push(() => client.close());

      const update = async () => {
        const summary = await client.update();
        assert.equal(summary.error, undefined);
        assert.deepEqual(summary.failed, [], 'every update verified its checksum');
        now += MINIMUM_WAIT_MS + 1000;
      };
      await update(); // from A: X, in full

      await writeFeed('a3.txt', Y);
      await a.feeds.reload();
      await b.store.refresh();
      await update(); // from B: X → Y

      await writeFeed('b3.txt', Z);
      await b.feeds.reload();
      await a.store.refresh();
      await update(); // from A: Y → Z

      assert.deepEqual(
        balancer.answers.map((answer) => [answer.upstream, answer.partial]),
        [
          [a.url, false],
          [b.url, true],
          [a.url, true],
        ],
      );
      const [listA, listB] = [await currentList(a.url), await currentList(b.url)];
      assert.deepEqual(listB.sha256Checksum, listA.sha256Checksum);
      const info = client.listInfo().find((list) => list.name === 'se-4b')!;
      assert.equal(info.checksum, Buffer.from(listA.sha256Checksum).toString('hex'));
      assert.equal(info.version, Buffer.from(listA.version).toString('base64'));
      assert.equal(info.entries, Z.length);
      assert.equal((await client.checkUrl('http://z.example/')).verdict, 'UNSAFE');
      assert.equal((await client.checkUrl('http://new.y.example/')).verdict, 'SAFE');
    },
  );
});

/** A load balancer on loopback that sends each request to the next upstream in turn, noting what went where. */
class RoundRobin {
  readonly answers: { upstream: string; partial: boolean | undefined }[] = [];
  private next = 0;

  private constructor(
    private readonly upstreams: readonly string[],
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(upstreams: readonly string[]): Promise<RoundRobin> {
    let balancer: RoundRobin | undefined;
    const server = createHttpServer((request, response) => void balancer!.forward(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the balancer has no port');
    balancer = new RoundRobin(upstreams, server, `http://127.0.0.1:${address.port}`);
    return balancer;
  }

  private async forward(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
    // The list updates take turns; anything else (the client's listing of lists) goes to the next in turn
    // without using the turn, so that the updates below meet A, B, A.
    const listUpdate = request.url?.includes('hashLists:batchGet') === true;
    const upstream = this.upstreams[(listUpdate ? this.next++ : this.next) % this.upstreams.length]!;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const name of ['content-type', 'accept', 'user-agent', 'x-goog-api-key']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const answer = await fetch(`${upstream}${request.url}`, {
      method: request.method!,
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      signal: AbortSignal.timeout(5000),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (listUpdate)
      this.answers.push({
        upstream,
        partial: answer.status === 200 ? fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists[0]?.partialUpdate : undefined,
      });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    response.end(body);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
