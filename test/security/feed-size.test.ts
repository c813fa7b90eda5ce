// S5: a feed (untrusted: a feed's server, or whoever writes a watched file) of a great many short lines,
// well under the size limit. It was parsed, canonicalized and hashed in one go on the event loop, keeping
// about 215 bytes per entry: nothing was answered for the whole read, not even /healthz (2 M lines: an
// 18.5 s stall), and with a small heap the process aborted. Now a feed is read in turns of the event loop
// (time/event-loop-turns.ts), keeps 32 to 64 bytes per entry (feeds/formats/hash-buckets.ts), and a source holds
// at most `feedMaxEntries` entries (its own `maxEntries`): past it the feed is refused, with a message in
// the report and the source's status, and its last good copy kept. A real service on loopback.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readServerConfig } from '../../src/server/config/config.ts';
import type { ListLoadReport } from '../../src/server/feeds/feed-lists.ts';
import { type Service, startService } from '../../src/server/service.ts';

const TOKEN = '7c1e5a9f3b0d4862e8a6c2f0b4d19e57';
/** A feed of this many short lines took 6 to 9 s of one stalled event loop before. */
const LINES = 1_000_000;
/**
 * How long /healthz may take, for 9 answers in 10, while the feed is read; the others leave room for
 * garbage collections and for the other test runs sharing the machine's two cores.
 */
const HEALTHZ_BOUND_MS = 100;
/** The one stall left: publishing the read list as a snapshot, a few hundred ms at a million entries. */
const PUBLICATION_BOUND_MS = 1500;

let dir: string;
const closing: Service[] = [];
/** What the loopback feed server serves now: read by the service only when asked to reload. */
let served = '';
let feedServer: Server;
let feedUrl = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-feed-size-'));
  feedServer = createHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(served));
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.txt`;
});
after(async () => {
  for (const service of closing.splice(0)) await service.close();
  feedServer.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(source: Record<string, unknown>): Promise<{ service: Service; told: ListLoadReport[] }> {
  const file = join(dir, 'sbkit.json');
  const lists = [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ format: 'expressions', ...source }] }];
  await writeFile(file, JSON.stringify({ adminToken: TOKEN, lists }));
  const told: ListLoadReport[] = [];
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config: await readServerConfig(file), dataDir: undefined },
    redis: undefined,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: () => {},
    onListReport: (report) => told.push(report),
  });
  closing.push(service);
  return { service, told };
}

async function reload(service: Service): Promise<ListLoadReport> {
  const response = await fetch(`${service.url}/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200);
  const { reloaded } = (await response.json()) as { reloaded: ListLoadReport[] };
  return reloaded[0]!;
}

/** The status of GET /healthz on a connection of its own: a kept-alive one may time out during a stall. */
function healthz(service: Service): Promise<number | string> {
  return new Promise((resolve) => {
    const request = get(`${service.url}/healthz`, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', (error) => resolve(error.message));
  });
}

const shortLines = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `h${from + i}.example/p`).join('\n');

describe('S5: a feed of very many short lines', { timeout: 300_000 }, () => {
  it('is read while /healthz keeps answering', async (t) => {
    served = 'kept.example/\n';
    const { service } = await serve({ url: feedUrl, allowPrivateAddresses: true });
    served = shortLines(LINES);

    const latencies: number[] = [];
    let done = false;
    const reloaded = reload(service).finally(() => (done = true));
    // One request at a time, each timed from its send to its answer, for as long as the feed is read.
    while (!done) {
      const start = performance.now();
      const status = await healthz(service);
      latencies.push(performance.now() - start);
      assert.equal(status, 200, `after ${(performance.now() - start).toFixed(0)} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const report = await reloaded;
    assert.equal(report.expressions, LINES, JSON.stringify(report.errors));
    const worst = Math.max(...latencies);
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = sorted[Math.floor(0.99 * (sorted.length - 1))]!;
    // Before: one answer, ~6-9 s, after the whole read. After: many answers, each within the bound.
    const p95 = sorted[Math.floor(0.95 * (sorted.length - 1))]!;
    const figures = `worst ${worst.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms, ${latencies.length} answers`;
    t.diagnostic(figures);
    assert.ok(latencies.length > 50, `only ${latencies.length} answers while the feed was read (${figures})`);
    const p90 = sorted[Math.floor(0.9 * (sorted.length - 1))]!;
    assert.ok(p90 < HEALTHZ_BOUND_MS, `p90 ${p90.toFixed(0)} ms; ${figures}`);
    // The snapshot's publication (lists/snapshot.ts: its id, its served prefixes) still runs in one go.
    assert.ok(worst < PUBLICATION_BOUND_MS, figures);
  });

  it('over its entry bound is refused with a message, and the last good copy kept', async () => {
    const feed = join(dir, 'bounded.txt');
    await writeFile(feed, shortLines(1000));
    const { service, told } = await serve({ file: feed, maxEntries: 1000 });
    await writeFile(feed, shortLines(1001, 5000));
    const report = await reload(service);
    assert.equal(report.expressions, 1000, 'the last good copy still counts');
    assert.match(report.errors.join('\n'), /bounded\.txt: holds more than 1000 entries; raise maxEntries/);
    // What `sbkit serve` logs of each load (cli/serve.ts), told as it happens.
    assert.ok(told.some((told) => told.errors.some((error) => /holds more than 1000 entries/.test(error))));
    const status = (await (await fetch(`${service.url}/status.json`)).json()) as { sources: { state: string; reason?: string }[] };
    assert.match(JSON.stringify(status), /more entries than its limit of 1,000/);
  });
});
