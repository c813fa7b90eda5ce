// startService over TLS (HTTP/2 and HTTP/1.1 on one port) and its reload (what SIGHUP calls): the
// certificate read again and served to new connections while open ones go on, the configuration read
// again and applied in part, and what does not check out refused with the running one kept.

import assert from 'node:assert/strict';
import http2, { type ClientHttp2Session } from 'node:http2';
import https from 'node:https';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ListLoadReport } from '../../src/server/feeds/feed-lists.ts';
import { readServerConfig } from '../../src/server/config/config.ts';
import { type Service, type ServiceConfig, startService } from '../../src/server/service.ts';
import { conditionalFeed, FeedServer } from './feeds/feed-server.ts';
import { TestCa } from './tls-fixture.ts';
import { within } from '../support/waiting.ts';

let dir: string;
let ca: TestCa;
const closing: (() => Promise<unknown> | void)[] = [];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-service-'));
  ca = await TestCa.create(dir);
});
after(async () => {
  for (const close of closing.reverse()) await close();
  await rm(dir, { recursive: true, force: true });
});

const TOKEN = '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7';

async function start(settings: Partial<ServiceConfig>): Promise<{ service: Service; log: string[] }> {
  const log: string[] = [];
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'demo' },
    redis: undefined,
    loadControl: true,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: (line) => log.push(line),
    ...settings,
  });
  closing.push(() => service.close());
  return { service, log };
}

function connect(url: string): ClientHttp2Session {
  const session = http2.connect(url, { ca: ca.cert });
  session.on('error', () => undefined);
  closing.push(() => void session.destroy());
  return session;
}

/** A GET on an HTTP/2 session: status and body. */
function ask(session: ClientHttp2Session, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    let body = '';
    stream.setEncoding('utf8');
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
  });
}

/** The common name of the certificate a session was served. */
const servedName = (session: ClientHttp2Session) => String((session.socket as TLSSocket).getPeerCertificate().subject.CN);

/** A GET over HTTP/1.1 on a connection of its own, trusting the test CA. */
function askHttp1(url: string): Promise<{ status: number; version: string; name: string; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: ca.cert, agent: false }, (response) => {
        let body = '';
        const name = String((response.socket as TLSSocket).getPeerCertificate().subject.CN);
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, version: response.httpVersion, name, body }));
      })
      .on('error', reject);
  });
}

/** Certificate files at fixed paths, replaced in place as an operator's renewal does. */
async function certificateFiles(name: string): Promise<{ cert: string; key: string; renew: (name: string) => Promise<void> }> {
  const cert = join(dir, `${name}-cert.pem`);
  const key = join(dir, `${name}-key.pem`);
  const renew = async (commonName: string) => {
    const issued = await ca.issue(commonName);
    await copyFile(issued.cert, cert);
    await copyFile(issued.key, key);
  };
  await renew(`${name}.first`);
  return { cert, key, renew };
}

describe('startService with TLS', () => {
  it('answers over HTTP/2 and HTTP/1.1 on one port, and serves a renewed certificate to new connections after a reload', async () => {
    const files = await certificateFiles('flags');
    const { service, log } = await start({ tls: { cert: files.cert, key: files.key, origin: { cert: '--tls-cert', key: '--tls-key' } } });
    assert.match(service.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(log.join('\n'), /TLS certificate CN=flags\.first, valid until /);
    const open = connect(service.url);
    assert.deepEqual(await ask(open, '/healthz'), { status: 200, body: '{"status":"ok"}' });
    assert.equal(servedName(open), 'flags.first');
    assert.equal(open.alpnProtocol, 'h2');
    const h1 = await askHttp1(`${service.url}/healthz`);
    assert.deepEqual([h1.status, h1.version, h1.name], [200, '1.1', 'flags.first']);

    await files.renew('flags.second');
    assert.equal(await service.reload(), true);
    assert.match(log.at(-2)!, /^TLS certificate CN=flags\.second, /);
    assert.match(log.at(-1)!, /^reloaded the certificate; flags take a restart$/);
    const renewed = connect(service.url);
    assert.equal((await ask(renewed, '/readyz')).status, 200);
    assert.equal(servedName(renewed), 'flags.second', 'a new connection gets the new certificate');
    assert.equal((await askHttp1(`${service.url}/healthz`)).name, 'flags.second');
    assert.deepEqual(await ask(open, '/healthz'), { status: 200, body: '{"status":"ok"}' }, 'the open session goes on');
    assert.equal(servedName(open), 'flags.first');
  });

  it('serves a renewed certificate at once on a reload, while a slow feed is still being downloaded again', async () => {
    let stall = false;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const feedServer = createHttpServer((_request, response) => {
      const answer = () => response.end('slow.example/\n');
      if (stall) void released.then(answer);
      else answer();
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    closing.push(() => {
      release();
      feedServer.closeAllConnections();
      return new Promise<void>((resolve) => feedServer.close(() => resolve()));
    });
    const feed = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.txt`;
    const files = await certificateFiles('slow-feed');
    const file = join(dir, 'slow-feed.json');
    await writeFile(
      file,
      JSON.stringify({
        tls: { cert: files.cert, key: files.key },
        lists: [
          {
            name: 'se-4b',
            threatTypes: ['SOCIAL_ENGINEERING'],
            sources: [{ url: feed, format: 'expressions', allowPrivateAddresses: true }],
          },
        ],
      }),
    );
    const { service } = await start({ lists: { from: 'config', file, config: await readServerConfig(file) } });
    stall = true;
    await files.renew('slow-feed.second');
    const reloaded = service.reload();
    const deadline = performance.now() + 5000;
    for (;;) {
      if ((await askHttp1(`${service.url}/healthz`)).name === 'slow-feed.second') break;
      assert.ok(performance.now() < deadline, 'the renewed certificate waited for the feed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    release();
    assert.equal(await reloaded, true);
  });

  it('abandons a reload under way when it stops: the download is cut, nothing is published after', async () => {
    let stall = false;
    let cut = () => {};
    const downloadCut = new Promise<void>((resolve) => (cut = resolve));
    const feedServer = createHttpServer((request, response) => {
      if (!stall) return void response.end('before.example/\n');
      request.socket.once('close', cut);
    });
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    closing.push(() => {
      feedServer.closeAllConnections();
      return new Promise<void>((resolve) => feedServer.close(() => resolve()));
    });
    const file = join(dir, 'stopping.json');
    const feed = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.txt`;
    await writeFile(
      file,
      JSON.stringify({
        lists: [
          {
            name: 'se-4b',
            threatTypes: ['SOCIAL_ENGINEERING'],
            sources: [{ url: feed, format: 'expressions', allowPrivateAddresses: true }],
          },
        ],
      }),
    );
    const reports: ListLoadReport[] = [];
    const { service, log } = await start({
      lists: { from: 'config', file, config: await readServerConfig(file) },
      onListReport: (report) => reports.push(report),
    });
    stall = true;
    const reloaded = service.reload();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stoppedAt = performance.now();
    await service.close();
    // Before, the download went on until feedTimeoutSeconds (60 s), holding the process after "stopped".
    await within(2000, 'the download cut', downloadCut);
    assert.equal(await within(2000, 'the reload', reloaded), false);
    assert.ok(performance.now() - stoppedAt < 2000);
    assert.equal(log.at(-1), 'reload abandoned: stopping');
    assert.equal(reports.length, 1, 'only the load at start was reported');
  });

  it('refuses a renewed key that is not the certificate’s, and keeps serving the running one', async () => {
    const files = await certificateFiles('mismatch');
    const { service, log } = await start({ tls: { cert: files.cert, key: files.key, origin: { cert: '--tls-cert', key: '--tls-key' } } });
    const other = await ca.issue('mismatch.other');
    await copyFile(other.key, files.key);
    assert.equal(await service.reload(), false);
    assert.match(
      log.at(-1)!,
      /^reload refused, the running configuration and certificate are kept: --tls-key: .* is not the key of the certificate/,
    );
    const session = connect(service.url);
    assert.equal((await ask(session, '/healthz')).status, 200);
    assert.equal(servedName(session), 'mismatch.first');
  });

  it("does not start with a certificate it cannot serve, naming the configuration's field", async () => {
    const config = join(dir, 'bad-tls.json');
    await writeFile(config, JSON.stringify({ tls: { cert: 'nowhere.pem', key: 'nowhere.key' } }));
    await assert.rejects(
      start({
        lists: {
          from: 'upstream',
          url: 'http://127.0.0.1:9',
          apiKey: undefined,
          protocol: 'v5',
          dataDir: undefined,
          config: await readServerConfig(config),
          configFile: config,
        },
      }),
      { code: 'SBKIT_CONFIG', message: /bad-tls\.json: tls\.cert: cannot read .*nowhere\.pem/ },
    );
  });
});

describe('Service.reload', () => {
  it('applies new API keys and waits, and the sources of the lists; refuses a broken file and keeps the running configuration', async () => {
    const feed = join(dir, 'feed.txt');
    await writeFile(feed, 'first.example/\n');
    const file = join(dir, 'reload.json');
    const write = (json: object) => writeFile(file, JSON.stringify(json));
    const list = (source: string) => [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: source, format: 'expressions' }] }];
    await write({ apiKeys: ['old-key'], adminToken: TOKEN, lists: list('feed.txt') });
    const { service, log } = await start({ lists: { from: 'config', file, config: await readServerConfig(file) } });
    const lists = async (key: string) => (await fetch(`${service.url}/v5/hashList/mw-4b?key=${key}&$alt=json`)).status;
    assert.equal(await lists('old-key'), 200);
    assert.equal(await lists('new-key'), 400, 'a key not valid, as Google answers it');
    const before = await (await fetch(`${service.url}/v5/hashList/mw-4b?key=old-key&$alt=json`)).json();

    const next = join(dir, 'next.txt');
    await writeFile(next, 'second.example/\nthird.example/\n');
    await write({ apiKeys: ['new-key'], adminToken: TOKEN, minimumWaitSeconds: 600, keepVersions: 3, lists: list('next.txt') });
    assert.equal(await service.reload(), true);
    assert.equal(await lists('old-key'), 400, 'the old key is gone');
    assert.equal(await lists('new-key'), 200);
    const after = (await (await fetch(`${service.url}/v5/hashList/mw-4b?key=new-key&$alt=json`)).json()) as {
      version: string;
      minimumWaitDuration: string;
    };
    assert.notEqual(after.version, (before as { version: string }).version, 'the new feed is published');
    assert.equal(after.minimumWaitDuration, '600s');
    assert.ok(log.includes('reload: keepVersions: changed; the running value stays in force until a restart'), log.join('\n'));
    assert.match(log.at(-1)!, /^reloaded .*reload\.json; flags take a restart$/);

    await writeFile(file, '{"apiKeys": ["broken-key"], ');
    assert.equal(await service.reload(), false);
    assert.match(log.at(-1)!, /^reload refused, the running configuration is kept: .*reload\.json: is not valid JSON/);
    await write({
      apiKeys: ['broken-key'],
      lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: 'x', format: 'nope' }] }],
    });
    assert.equal(await service.reload(), false);
    assert.match(log.at(-1)!, /^reload refused, .*: lists\[0\]\.sources\[0\]\.format: must be one of/);
    assert.equal(await lists('new-key'), 200, 'the running configuration serves on');
    assert.equal(await lists('broken-key'), 400);
  });

  it('warns, at start and at each reload, of a wait Firefox ignores, naming the field, and serves it all the same', async () => {
    const file = join(dir, 'short-wait.json');
    await writeFile(file, JSON.stringify({ changingMinimumWaitSeconds: 60 }));
    const { service, log } = await start({ lists: { from: 'config', file, config: await readServerConfig(file) } });
    const firefox =
      /^(reload: )?changingMinimumWaitSeconds is 60: Firefox ignores a minimum_wait_duration under 300 s and then waits 30 minutes/;
    assert.equal(log.filter((line) => firefox.test(line)).length, 1, log.join('\n'));
    assert.ok(!log.some((line) => line.startsWith('minimumWaitSeconds')), 'the usual wait, 1800 s, is no warning');
    assert.equal(await service.reload(), true);
    assert.equal(log.filter((line) => firefox.test(line)).length, 2, 'told again at the reload');
    await writeFile(file, JSON.stringify({ changingMinimumWaitSeconds: 300 }));
    assert.equal(await service.reload(), true);
    assert.equal(log.filter((line) => line.includes('Firefox ignores')).length, 2, 'no warning for a wait Firefox keeps');
  });

  it('rotates the admin token', async () => {
    const file = join(dir, 'token.json');
    await writeFile(file, JSON.stringify({ adminToken: TOKEN }));
    const { service } = await start({ lists: { from: 'config', file, config: await readServerConfig(file) } });
    const pause = (token: string) =>
      fetch(`${service.url}/admin/resume`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal((await pause(TOKEN)).status, 200);
    const rotated = 'f3a8c1d6e9b2f5a0c7d4e1b8a5f2c9d6';
    await writeFile(file, JSON.stringify({ adminToken: rotated }));
    assert.equal(await service.reload(), true);
    assert.equal((await pause(TOKEN)).status, 401);
    assert.equal((await pause(rotated)).status, 200);
  });
});

describe('readiness of a proxy', () => {
  it('is not ready before its first copy of the upstream’s lists', async () => {
    // Port 9 (discard) answers nothing: the mirror has no copy, and must not pass for ready with empty lists.
    const { service } = await start({
      lists: { from: 'upstream', url: 'http://127.0.0.1:9', apiKey: undefined, protocol: 'v5', dataDir: undefined, config: undefined },
    });
    const ready = await fetch(`${service.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: 'not-ready', reason: "no copy of http://127.0.0.1:9's lists yet" });
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
  });
});

describe('feed sources on /status, /status.json and /metrics', () => {
  it('show each source by list and name, in words, and never its URL, path, query or credentials', async () => {
    const feeds = await FeedServer.start();
    closing.push(() => feeds.close());
    feeds.route('/private/feed.txt', conditionalFeed({ text: 'http://listed.example/\n', version: 1 }));
    feeds.route('/down.txt', (_request, response) => response.writeHead(502).end());
    const secretUrl = feeds.url('/private/feed.txt?key=query-secret').replace('http://', 'http://feeduser:pass-secret@');
    const file = join(dir, 'feeds.json');
    await writeFile(
      file,
      JSON.stringify({
        lists: [
          {
            name: 'mw-4b',
            threatTypes: ['MALWARE'],
            sources: [
              { url: secretUrl, format: 'urls' },
              { url: feeds.url('/down.txt'), format: 'urls', name: 'partner-feed', timeoutSeconds: 5 },
            ],
          },
        ],
      }),
    );
    const { service } = await start({ lists: { from: 'config', file, config: await readServerConfig(file) } });
    const text = async (path: string) => (await fetch(`${service.url}${path}`)).text();
    const page = await text('/status');
    const json = await text('/status.json');
    const metrics = await text('/metrics');
    for (const answer of [page, json, metrics]) {
      assert.doesNotMatch(answer, /secret|feeduser|\/private|feed\.txt|down\.txt/);
    }
    const host = new URL(feeds.base).host;
    assert.match(
      page,
      new RegExp(`<tr class="fresh"><td><code>mw-4b</code></td><td>${host}</td><td>fresh, 1 entry, checked \\d+ s ago</td></tr>`),
    );
    assert.match(
      page,
      /<tr class="unavailable"><td><code>mw-4b<\/code><\/td><td>partner-feed<\/td><td>failing since [^(]+ \(1 try\): HTTP 502; nothing to serve from it yet; next try in \d+ s<\/td><\/tr>/,
    );
    const status = JSON.parse(json) as {
      feeds: { name: string; state: string; failure: { kind: string } | null; entries: number | null }[];
    };
    assert.deepEqual(
      status.feeds.map((f) => [f.name, f.state, f.failure?.kind ?? null, f.entries]),
      [
        [host, 'fresh', null, 1],
        ['partner-feed', 'unavailable', 'http-status', null],
      ],
    );
    assert.match(metrics, new RegExp(`sbkit_feed_source_entries\\{list="mw-4b",source="0",name="${host}"\\} 1\\n`));
    assert.match(metrics, /sbkit_feed_source_up\{list="mw-4b",source="1",name="partner-feed"\} 0\n/);
    assert.equal(feeds.count('/private/feed.txt'), 1);
  });
});
