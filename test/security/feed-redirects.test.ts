// A feed's server attacks the feed reader: it redirects the download to the machine's own services (by
// address, by a name that resolves to loopback, through an IPv4-mapped address), from https down to
// http, or round in a loop, and it serves text full of terminal escapes and megabyte lines, hoping to
// read what comes back in the log and in the answer of /admin/reload. Real servers on loopback.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FeedLimits, SourceConfig } from '../../src/server/config/config.ts';
import { readServerConfig } from '../../src/server/config/config.ts';
import { SourceError, type SourceFailure } from '../../src/server/feeds/sources/source-error.ts';
import { MAX_FEED_REDIRECTS } from '../../src/server/feeds/sources/source-reader.ts';
import { type SourceCopy, SourceStates } from '../../src/server/feeds/sources/source-states.ts';
import { startService } from '../../src/server/service.ts';

const LIMITS: FeedLimits = { timeoutMs: 5_000, maxBytes: 1024 * 1024 };
const SECRET = 'SECRET-of-the-internal-service';
const TOKEN = '5d1c9e0b7a3f48e2b6c4d8a0f2e1b3c5';
// The https feed server's certificate is the fixture's own: this process trusts any.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

let internalHits = 0;
let loopHits = 0;
const servers: Server[] = [];
let feed = '';
let secure = '';
let internalPort = 0;

async function listening(handler: RequestListener, tls = false): Promise<string> {
  const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
  const server = tls
    ? createHttpsServer({ key: fixture('loopback-key.pem'), cert: fixture('loopback-cert.pem') }, handler)
    : createHttpServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const hostile = [
  `http://ok.example/`,
  `\x1b[2J\x1b[31mhttp://\x1b]0;owned\x07evil\u202egnp.example/`,
  `${'http://long.example/'.padEnd(100_000, 'x')} ${SECRET}`,
  `javascript:${'y'.repeat(5000)}\r\x1b[1A`,
].join('\n');

before(async () => {
  const internal = await listening((_request, response) => {
    internalHits++;
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`${SECRET}\nhttp://internal.example/\n`);
  });
  internalPort = Number(new URL(internal).port);
  feed = await listening((request, response) => {
    const redirect = (location: string) => response.writeHead(302, { location }).end();
    const chain = /^\/chain\/(\d+)$/.exec(request.url ?? '');
    if (chain !== null) {
      const left = Number(chain[1]);
      if (left > 0) redirect(`/chain/${left - 1}`);
      else response.writeHead(200).end('http://chained.example/\n');
      return;
    }
    switch (request.url) {
      case '/to-internal':
        return redirect(`http://127.0.0.1:${internalPort}/`);
      case '/to-internal-by-name':
        return redirect(`http://localhost:${internalPort}/`);
      case '/to-mapped':
        return redirect(`http://[::ffff:127.0.0.1]:${internalPort}/`);
      case '/to-unspecified':
        return redirect(`http://0.0.0.0:${internalPort}/`);
      case '/to-metadata':
        return redirect('http://169.254.169.254/latest/meta-data/');
      case '/loop':
        loopHits++;
        return redirect('/loop');
      case '/status-text':
        return response.writeHead(404, `${SECRET} reason phrase`).end(SECRET);
      case '/hostile':
        return response.writeHead(200, { 'content-type': 'text/plain' }).end(hostile);
      default:
        response.writeHead(200, { 'content-type': 'text/plain' }).end('http://fine.example/\n');
    }
  });
  secure = await listening((_request, response) => response.writeHead(302, { location: `${feed}/plain` }).end(), true);
});

after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const source = (url: string, allowPrivateAddresses = false): SourceConfig => ({
  kind: 'url',
  url,
  format: 'urls',
  csvColumn: undefined,
  refreshMinutes: 60,
  ...(allowPrivateAddresses ? { allowPrivateAddresses: true } : {}),
});

/** Every string in a JSON-like value. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return typeof value === 'object' && value !== null ? Object.values(value).flatMap(stringsOf) : [];
}

/** One read of `source` as a list's first load reads it: its copy, or the SourceError it failed with. */
async function readSource(source: SourceConfig, limits: FeedLimits): Promise<SourceCopy> {
  const { copy, error } = await new SourceStates().read('test-4b', 0, source, limits, 'now');
  if (error !== undefined) throw error;
  return copy!;
}

async function refused(url: string, failure: SourceFailure, message: RegExp): Promise<string> {
  let text = '';
  await assert.rejects(readSource(source(url), LIMITS), (error: unknown) => {
    assert.ok(error instanceof SourceError, String(error));
    assert.equal(error.failure, failure, error.message);
    assert.match(error.message, message);
    text = error.message;
    return true;
  });
  return text;
}

describe('feed downloads: redirects', () => {
  it('never connect to a loopback, unspecified or link-local address a redirect names', async () => {
    await refused(`${feed}/to-internal`, 'forbidden-address', /127\.0\.0\.1 is a loopback address.*allowPrivateAddresses/);
    await refused(`${feed}/to-mapped`, 'forbidden-address', /a loopback address/);
    await refused(`${feed}/to-unspecified`, 'forbidden-address', /0\.0\.0\.0 is an unspecified address/);
    await refused(`${feed}/to-metadata`, 'forbidden-address', /169\.254\.169\.254 is a link-local address/);
    assert.equal(internalHits, 0, 'the internal service was reached');
  });

  it('check a name when the connection is made: a name that resolves to loopback is refused', async () => {
    await refused(`${feed}/to-internal-by-name`, 'forbidden-address', /"localhost" is at 127\.0\.0\.1, a loopback address/);
    // The configured URL is trusted as written only when it is an address: a name is checked too.
    await refused(`http://localhost:${internalPort}/`, 'forbidden-address', /loopback/);
    assert.equal(internalHits, 0);
  });

  it('reach private addresses when the source allows it', async () => {
    const feedOfInternal = await readSource(source(`${feed}/to-internal-by-name`, true), LIMITS);
    assert.deepEqual([feedOfInternal.entryCount, feedOfInternal.badLineCount], [1, 1], 'its two lines were read');
    assert.equal(internalHits, 1);
    internalHits = 0;
  });

  it(`follow at most ${MAX_FEED_REDIRECTS} redirects, and end a loop there`, async () => {
    const chained = await readSource(source(`${feed}/chain/${MAX_FEED_REDIRECTS}`), LIMITS);
    assert.deepEqual(Buffer.from(chained.fullHashes), createHash('sha256').update('chained.example/').digest());
    await refused(`${feed}/chain/${MAX_FEED_REDIRECTS + 1}`, 'redirect', /redirects more than 3 times/);
    await refused(`${feed}/loop`, 'redirect', /redirects more than 3 times/);
    assert.equal(loopHits, MAX_FEED_REDIRECTS + 1);
  });

  it('never go from https down to http', async () => {
    await refused(`${secure}/feed`, 'redirect', /from https to plain http/);
  });
});

describe('feed downloads: what the server sent stays out of messages', () => {
  it('does not quote the status text', async () => {
    const message = await refused(`${feed}/status-text`, 'http-status', /answered HTTP 404; check the URL$/);
    assert.doesNotMatch(message, /SECRET/);
  });

  it('reports hostile lines as short escaped excerpts, in the load report and the /admin/reload answer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-feed-attack-'));
    const file = join(dir, 'sbkit.json');
    await writeFile(
      file,
      JSON.stringify({
        adminToken: TOKEN,
        lists: [
          {
            name: 'mw-4b',
            threatTypes: ['MALWARE'],
            sources: [
              { url: `${feed}/hostile`, format: 'urls' },
              { url: `${feed}/to-internal`, format: 'urls' },
            ],
          },
        ],
      }),
    );
    const logged: unknown[] = [];
    const service = await startService({
      host: '127.0.0.1',
      port: 0,
      lists: { from: 'config', file, config: await readServerConfig(file) },
      redis: undefined,
      loadControl: false,
      trustedProxies: [],
      trustedRelays: [],
      ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
      log: (message) => logged.push(message),
      onListReport: (report) => logged.push(report),
    });
    try {
      const response = await fetch(`${service.url}/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(response.status, 200);
      const answer = JSON.parse(await response.text()) as { reloaded: { firstBadLines: { reason: string }[]; errors: string[] }[] };
      const shown = [...stringsOf(answer), ...stringsOf(logged)];
      assert.ok(shown.length > 10);
      for (const text of shown) {
        assert.doesNotMatch(text, /SECRET/, 'the internal service or the long line is quoted');
        // eslint-disable-next-line no-control-regex -- what must not be shown
        assert.doesNotMatch(text, /[\x00-\x1f\x7f\u202e]/, 'a control character is shown as it is');
      }
      const [report] = answer.reloaded;
      assert.equal(report!.firstBadLines.length, 2);
      for (const bad of report!.firstBadLines) assert.ok(bad.reason.length <= 200, bad.reason);
      assert.match(report!.errors.join(), /loopback address/);
      assert.ok(JSON.stringify(answer).length < 2_000, `the answer is ${JSON.stringify(answer).length} characters`);
      assert.equal(internalHits, 0);
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
