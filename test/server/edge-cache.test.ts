// Edge caching proven with a real cache: Debian's nginx, configured as docs/operations.md "Edge caching"
// shows, in front of a real sbkit server on loopback. Identical update requests from many clients reach
// sbkit a handful of times (batchGet, a single hashList, v4), every client gets the bytes sbkit answers
// directly, and a publish reaches the clients within max-age and their own wait.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as v4 from '../../src/proto/v4.ts';
import * as v5 from '../../src/proto/v5.ts';
import { ListCatalog } from '../../src/server/catalog.ts';
import { ListHistory } from '../../src/server/lists/list-history.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { expressionHashBytes } from '../../src/url/hash.ts';
import { NGINX_SKIP, requireNginx } from './nginx-fixture.ts';
import { freePort } from '../support/ports.ts';

/** listCacheSeconds: short, so that the test sees entries expire and a publish arrive. */
const MAX_AGE_SECONDS = 2;
const CLIENTS = 50;
/** How long a polling client waits between two updates. */
const CLIENT_WAIT_MS = 250;
/** nginx keeps time in whole seconds: an entry may live up to a second past its max-age. */
const NGINX_CLOCK_MS = 1000;
/** Loopback round trips through nginx on a busy machine. */
const SLACK_MS = 1000;

const DOCS = new URL('../../docs/operations.md', import.meta.url);

/** The nginx block of docs/operations.md "## Edge caching", with its cache folder, sbkit's port and its own listener replaced. */
function documentedConfig(cacheDir: string, sbkitPort: number, port: number): string {
  const docs = readFileSync(DOCS, 'utf8');
  const section = docs.slice(docs.indexOf('\n## Edge caching'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block !== undefined, 'docs/operations.md "## Edge caching" has an nginx block');
  const replacements: [string, string][] = [
    ['/var/cache/nginx/sbkit', cacheDir],
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${sbkitPort};`],
    ['listen 80;', `listen 127.0.0.1:${port};`],
  ];
  let config = block;
  for (const [from, to] of replacements) {
    assert.ok(config.includes(from), `the documented nginx configuration has ${from}`);
    config = config.replace(from, to);
  }
  return config;
}

/** nginx's own configuration around the documented file: everything it writes stays in `dir`. */
function mainConfig(dir: string): string {
  // As root, nginx's workers would run as nobody, who cannot write to a temporary folder of root's.
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};` : '';
  return `daemon off;
${user}
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy_temp;
  fastcgi_temp_path ${dir}/fastcgi_temp;
  uwsgi_temp_path ${dir}/uwsgi_temp;
  scgi_temp_path ${dir}/scgi_temp;
  include ${dir}/sbkit.conf;
}
`;
}

/** Starts nginx in the foreground and resolves once it answers; rejects with its error log when it does not. */
async function startNginx(dir: string, sbkitPort: number): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  await writeFile(join(dir, 'sbkit.conf'), documentedConfig(join(dir, 'cache'), sbkitPort, port));
  await writeFile(join(dir, 'nginx.conf'), mainConfig(dir));
  const child = spawn(requireNginx(), ['-p', `${dir}/`, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  child.kill('SIGKILL');
  let log = '';
  try {
    log = readFileSync(join(dir, 'error.log'), 'utf8');
  } catch {
    // no log written
  }
  throw new Error(`nginx did not answer on ${url} within 10 s (exit ${child.exitCode}): ${log}`);
}

async function stopNginx(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
}

const hashesOf = (...expressions: string[]) => Buffer.concat(expressions.map((e) => expressionHashBytes(e)));
const base64 = (bytes: Uint8Array) => encodeURIComponent(Buffer.from(bytes).toString('base64'));
/** Firefox's batch: one version per name, by position (docs/api.md §3). */
const batchPath = (versions: readonly Uint8Array[]) =>
  `/v5/hashLists:batchGet?names=se-4b&names=mw-4b&${versions.map((v) => `version=${base64(v)}`).join('&')}`;
const FIREFOX = { accept: '*/*' };
/** Marks the test's own requests to sbkit, which do not count as requests that reached it. */
const DIRECT = 'x-test-direct';

/** Runs `clients` loops of `each` steps at once; each step gets the client's number. */
async function concurrently(clients: number, each: number, step: (client: number) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = 0; i < each; i++) await step(client);
    }),
  );
}

describe('an nginx edge cache in front of sbkit', { skip: NGINX_SKIP }, () => {
  let dir: string;
  let server: SafeBrowsingServer;
  let sbkit: string;
  let nginx: { child: ChildProcess; url: string };
  let se: ListHistory;
  let mw: ListHistory;
  /** Statuses of the API requests that reached sbkit, in order. */
  const reached: number[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbkit-edge-'));
    const list = (name: string, threatTypes: ['SOCIAL_ENGINEERING'] | ['MALWARE']) =>
      new ListHistory({ name, hashLength: 4, threatTypes, likelySafeTypes: [], description: '' }, { keep: 5 });
    se = list('se-4b', ['SOCIAL_ENGINEERING']);
    mw = list('mw-4b', ['MALWARE']);
    se.publish(hashesOf('phish-0.example/', 'phish-1.example/', 'phish-2.example/'));
    mw.publish(hashesOf('malware-0.example/'));
    server = createServer({ catalog: new ListCatalog([se, mw]), settings: { listCacheSeconds: MAX_AGE_SECONDS }, port: 0 });
    server.app.addHook('onResponse', async (request, reply) => {
      if (/^\/v(4|5)/.test(request.url) && request.headers[DIRECT] === undefined) reached.push(reply.statusCode);
    });
    sbkit = await server.listen();
    nginx = await startNginx(dir, Number(new URL(sbkit).port));
  });

  after(async () => {
    if (nginx !== undefined) await stopNginx(nginx.child);
    await server?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** The answer sbkit gives itself, not counted among the requests that reached it through nginx. */
  async function direct(path: string, headers: Record<string, string>): Promise<Buffer> {
    const response = await fetch(`${sbkit}${path}`, { headers: { ...headers, [DIRECT]: '1' } });
    assert.equal(response.status, 200);
    return Buffer.from(await response.arrayBuffer());
  }

  /**
   * Sends `total` identical requests from CLIENTS clients through nginx, each client waiting `waitMs`
   * between its requests; checks what they got and how many reached sbkit.
   */
  async function identical(
    t: { diagnostic(message: string): void },
    what: string,
    request: { path: string; headers: Record<string, string>; total: number; waitMs: number },
  ): Promise<{ body: Buffer; cachedSpan: number }> {
    const { path, headers, total, waitMs } = request;
    const expected = await direct(path, headers);
    reached.length = 0;
    let wrong = 0;
    const started = performance.now();
    // When the first answer arrived (the entry was stored) and when the last request left: only the span
    // between them can have outlasted the entry's freshness.
    let firstAnswered = Infinity;
    let lastSent = 0;
    await concurrently(CLIENTS, total / CLIENTS, async () => {
      lastSent = performance.now();
      const response = await fetch(`${nginx.url}${path}`, { headers });
      const body = Buffer.from(await response.arrayBuffer());
      firstAnswered = Math.min(firstAnswered, performance.now());
      if (response.status !== 200 || !body.equals(expected)) wrong++;
      await sleep(waitMs);
    });
    const seconds = (performance.now() - started) / 1000;
    const cachedSpan = (lastSent - firstAnswered) / 1000;
    const full = reached.filter((status) => status === 200).length;
    const notModified = reached.filter((status) => status === 304).length;
    t.diagnostic(
      `${what}: ${total} requests from ${CLIENTS} clients in ${seconds.toFixed(2)} s; reached sbkit ${reached.length} times ` +
        `(${full} × 200, ${notModified} × 304); wrong answers ${wrong}`,
    );
    assert.equal(wrong, 0, 'every client gets the bytes sbkit answers directly');
    assert.equal(reached.length, full + notModified);
    // The first request fills the cache (the others wait for it: proxy_cache_lock); nothing changes, so
    // each expiry of the entry costs one revalidation, answered 304.
    assert.equal(full, 1);
    assert.ok(reached.length <= 1 + Math.ceil(seconds / MAX_AGE_SECONDS), `${reached.length} requests reached sbkit in ${seconds} s`);
    // A request sent past max-age (and nginx's whole-second clock) made nginx ask with If-None-Match, and
    // sbkit said 304.
    if (cachedSpan > MAX_AGE_SECONDS + NGINX_CLOCK_MS / 1000) {
      assert.ok(
        notModified >= 1,
        `the entry was revalidated with its ETag (requests went on ${cachedSpan.toFixed(2)} s after it was stored)`,
      );
    }
    return { body: expected, cachedSpan };
  }

  it(
    '1,000 identical v5 updates from 50 clients reach sbkit a handful of times; every client gets the right bytes',
    { timeout: 60_000 },
    async (t) => {
      const held = fromBinary(v5.BatchGetHashListsResponseSchema, await direct(batchPath([new Uint8Array(0), new Uint8Array(0)]), FIREFOX));
      se.publish(hashesOf('phish-1.example/', 'phish-2.example/', 'phish-3.example/', 'phish-4.example/'));
      const path = batchPath(held.hashLists.map((list) => list.version));
      // Paced so that the run outlasts max-age: the entry expires and is revalidated meanwhile.
      const { body } = await identical(t, 'v5 hashLists:batchGet', { path, headers: FIREFOX, total: 1000, waitMs: 250 });
      const answer = fromBinary(v5.BatchGetHashListsResponseSchema, body);
      assert.equal(answer.hashLists[0]!.partialUpdate, true, 'a diff from the version the clients hold');
    },
  );

  it('300 identical single-list v5 updates (GET /v5/hashList/{name}) are cached and revalidated alike', { timeout: 60_000 }, async (t) => {
    const held = fromBinary(v5.HashListSchema, await direct('/v5/hashList/mw-4b', FIREFOX));
    mw.publish(hashesOf('malware-0.example/', 'malware-1.example/'));
    const path = `/v5/hashList/mw-4b?version=${base64(held.version)}`;
    // Six requests a client, 800 ms apart: the entry outlives max-age and nginx's whole second, so it is
    // revalidated (identical() asserts the 304).
    const { body, cachedSpan } = await identical(t, 'v5 hashList/mw-4b', { path, headers: FIREFOX, total: 300, waitMs: 800 });
    assert.ok(
      cachedSpan > MAX_AGE_SECONDS + NGINX_CLOCK_MS / 1000,
      `requests went on only ${cachedSpan.toFixed(2)} s after the entry was stored`,
    );
    const answer = fromBinary(v5.HashListSchema, body);
    assert.equal(answer.partialUpdate, true, 'a diff from the version the clients hold');
  });

  it("500 identical v4 updates in Firefox's GET form reach sbkit a handful of times", { timeout: 60_000 }, async (t) => {
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      listUpdateRequests: [
        {
          threatType: v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL,
          platformType: v4.PlatformType.ANY_PLATFORM,
          threatEntryType: v4.ThreatEntryType.URL,
          constraints: { supportedCompressions: [v4.CompressionType.RICE] },
        },
      ],
    });
    const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url');
    const path = `/v4/threatListUpdates:fetch?$ct=application/x-protobuf&$httpMethod=POST&$req=${req}`;
    const headers = { ...FIREFOX, 'x-http-method-override': 'POST' };
    const { body } = await identical(t, "v4 threatListUpdates:fetch (Firefox's GET)", { path, headers, total: 500, waitMs: 0 });
    assert.equal(fromBinary(v4.FetchThreatListUpdatesResponseSchema, body).listUpdateResponses.length, 1);
  });

  it('after a publish, every client has the new version within max-age and its own wait', { timeout: 60_000 }, async (t) => {
    // The clients hold the current versions and poll, as clients do, adopting what they are answered.
    const current = fromBinary(
      v5.BatchGetHashListsResponseSchema,
      await direct(batchPath([new Uint8Array(0), new Uint8Array(0)]), FIREFOX),
    );
    const held = Array.from({ length: CLIENTS }, () => current.hashLists.map((list) => list.version));
    const arrivedAt: (number | undefined)[] = Array.from({ length: CLIENTS }, () => undefined);
    const answered = new Map<string, Buffer>();
    let publishedAt: number | undefined;
    let newVersion = '';
    let failures = 0;
    const bound = MAX_AGE_SECONDS * 1000 + NGINX_CLOCK_MS + CLIENT_WAIT_MS + SLACK_MS;
    reached.length = 0;
    const poll = async (client: number) => {
      while (publishedAt === undefined || (arrivedAt[client] === undefined && performance.now() - publishedAt < bound + 5000)) {
        const path = batchPath(held[client]!);
        const response = await fetch(`${nginx.url}${path}`, { headers: FIREFOX });
        const body = Buffer.from(await response.arrayBuffer());
        if (response.status !== 200) failures++;
        else {
          answered.set(path, body);
          stored();
          const versions = fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists.map((list) => list.version);
          held[client] = versions;
          if (publishedAt !== undefined && Buffer.from(versions[0]!).toString('hex') === newVersion)
            arrivedAt[client] ??= performance.now();
        }
        await sleep(CLIENT_WAIT_MS);
      }
    };
    let stored = () => {};
    const cached = new Promise<void>((resolve) => (stored = resolve));
    const polling = Promise.all(held.map((_, client) => poll(client)));
    // The worst case: the publish comes just after the cache stored the answer, which it then serves
    // for its whole max-age.
    await cached;
    se.publish(hashesOf('phish-3.example/', 'phish-4.example/', 'phish-5.example/'));
    publishedAt = performance.now();
    newVersion = Buffer.from(
      fromBinary(v5.BatchGetHashListsResponseSchema, await direct(batchPath([new Uint8Array(0), new Uint8Array(0)]), FIREFOX)).hashLists[0]!
        .version,
    ).toString('hex');
    await polling;

    const delays = arrivedAt.map((at) => (at === undefined ? Number.POSITIVE_INFINITY : at - publishedAt)).sort((a, b) => a - b);
    t.diagnostic(
      `publish → clients: first ${delays[0]!.toFixed(0)} ms, median ${delays[CLIENTS / 2]!.toFixed(0)} ms, last ${delays.at(-1)!.toFixed(0)} ms ` +
        `(bound ${bound} ms: max-age ${MAX_AGE_SECONDS} s + nginx's whole seconds + wait ${CLIENT_WAIT_MS} ms + ${SLACK_MS} ms); ` +
        `requests that reached sbkit: ${reached.length}`,
    );
    assert.equal(failures, 0);
    assert.ok(delays.at(-1)! <= bound, `the last client had the new version after ${delays.at(-1)} ms`);
    // What the clients were answered is what sbkit answers directly to the same requests.
    for (const [path, body] of answered) {
      if (
        !fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists.some((l) => Buffer.from(l.version).toString('hex') === newVersion)
      )
        continue;
      assert.deepEqual(body, await direct(path, FIREFOX), path);
    }
  });
});
