import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import type { Clock } from '../../src/time/clock.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import * as v5 from '../../src/proto/v5.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { type Service, startService } from '../../src/server/service.ts';

// `sbkit serve --config F --data DIR`, restarted: what clients holding a version from before the restart get.

const MINIMUM_WAIT_MS = 60_000;
const X = ['phishing.x.example/', 'evil.example/login', 'shared.example/'];
const Y = ['shared.example/', 'evil.example/login', 'new.y.example/', 'more.y.example/a'];
const Z = ['shared.example/', 'z.example/'];

let dir: string;
const cleanups: (() => Promise<unknown> | void)[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-durable-history-'));
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** `sbkit serve --config sbkit.json` with the configuration's `dataDir`, as the CLI assembles it. */
async function serve(logs: string[]): Promise<Service> {
  const file = join(dir, 'sbkit.json');
  const config = parseServerConfig(
    {
      minimumWaitSeconds: MINIMUM_WAIT_MS / 1000,
      keepVersions: 5,
      dataDir: 'data',
      lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: 'feed.txt', format: 'expressions' }] }],
    },
    dir,
  );
  assert.equal(config.dataDir, join(dir, 'data'), 'relative to the configuration file');
  return startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config, dataDir: config.dataDir },
    redis: undefined,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 86_400_000, overlapMs: 3_600_000 },
    log: (message) => logs.push(message),
  });
}

async function writeFeed(expressions: readonly string[]): Promise<void> {
  await writeFile(join(dir, 'feed.txt'), `${expressions.join('\n')}\n`);
}

describe('sbkit serve --data: list history across restarts', () => {
  it(
    'serves the same versions after a restart: a client holding one gets a diff whose checksum verifies',
    { timeout: 30_000 },
    async () => {
      const front = await Front.start();
      cleanups.push(() => front.close());
      let now = Date.now();
      const clock: Clock = {
        now: () => now,
        setTimeout: (callback, ms) => setTimeout(callback, ms),
        clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      };
      const client = new SafeBrowsingClient({ server: front.url, protocol: 'v5', mode: 'local', lists: ['se-4b'], clock });
      cleanups.push(() => client.close());
      const update = async () => {
        const summary = await client.update();
        assert.equal(summary.error, undefined);
        assert.deepEqual(summary.failed, [], 'every update verified its checksum');
        now += MINIMUM_WAIT_MS + 1000;
        return front.partials.at(-1);
      };

      // First run: X, then the client updates in full.
      await writeFeed(X);
      const firstLogs: string[] = [];
      const first = await serve(firstLogs);
      front.upstream = first.url;
      assert.equal(await update(), false, 'a new client gets the whole list');
      await first.close();

      // Restart with a changed feed: the client at X gets X → Y.
      await writeFeed(Y);
      const secondLogs: string[] = [];
      const second = await serve(secondLogs);
      front.upstream = second.url;
      assert.match(secondLogs.join('\n'), /list se-4b: restored \d+ of \d+ kept versions from .*data/);
      assert.equal(await update(), true, 'a client at a version from before the restart gets a diff');
      const info = client.listInfo().find((list) => list.name === 'se-4b')!;
      assert.equal(info.entries, Y.length);
      assert.equal((await client.checkUrl('http://new.y.example/')).verdict, 'UNSAFE');
      assert.equal((await client.checkUrl('http://phishing.x.example/')).verdict, 'SAFE');
      await second.close();

      // Restart while the feed cannot be read: the version from before is served, and the client is told it is current.
      await rm(join(dir, 'feed.txt'));
      const third = await serve([]);
      front.upstream = third.url;
      assert.deepEqual(third.lists, [{ name: 'se-4b', entries: Y.length }]);
      assert.equal(await update(), true);
      assert.equal(client.listInfo().find((list) => list.name === 'se-4b')!.checksum, info.checksum);
      assert.equal((await client.checkUrl('http://new.y.example/')).verdict, 'UNSAFE', 'searches use the restored full hashes');
      await third.close();

      // The current version's file damaged: reported, never served; the list comes from the feed, and the
      // client, whose version was that one, gets the whole list.
      const data = join(dir, 'data');
      const full = (await readdir(data)).find((name) => name.endsWith('.full'))!;
      const bytes = await readFile(join(data, full));
      bytes[bytes.length - 1]! ^= 0x01;
      await writeFile(join(data, full), bytes);
      await writeFeed(Z);
      const fourthLogs: string[] = [];
      const fourth = await serve(fourthLogs);
      cleanups.push(() => fourth.close());
      front.upstream = fourth.url;
      assert.match(fourthLogs.join('\n'), new RegExp(`${full} cannot be used \\(checksum mismatch\\); it is not served`));
      assert.equal(await update(), false);
      assert.equal(client.listInfo().find((list) => list.name === 'se-4b')!.entries, Z.length);
      assert.equal((await client.checkUrl('http://z.example/')).verdict, 'UNSAFE');
    },
  );
});

/** A front on loopback that forwards to the current instance, noting whether each list update was partial. */
class Front {
  upstream = '';
  readonly partials: (boolean | undefined)[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Front> {
    let front: Front | undefined;
    const server = createHttpServer((request, response) => void front!.forward(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the front has no port');
    front = new Front(server, `http://127.0.0.1:${address.port}`);
    return front;
  }

  private async forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const headers = new Headers();
    for (const name of ['accept', 'user-agent']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    const answer = await fetch(`${this.upstream}${request.url}`, { method: request.method!, headers, signal: AbortSignal.timeout(5000) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (request.url?.includes('hashLists:batchGet') === true && answer.status === 200) {
      this.partials.push(fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists[0]?.partialUpdate);
    }
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    response.end(body);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
