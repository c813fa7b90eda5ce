import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EXIT } from '../../src/cli/io.ts';
import { deleteKeys, ensureRedis, keysUnder, REDIS_URL, RedisRelay, uniqueKeyPrefix } from '../server/redis-fixture.ts';
import { encodeBinaryHttpRequest } from '../../src/wire/ohttp/binary-http.ts';
import { encapsulateRequest } from '../../src/wire/ohttp/ohttp-client.ts';
import { parseKeyConfigs } from '../../src/wire/ohttp/ohttp-keys.ts';
import { withEnvironment } from './environment.ts';
import { serve, start, startWith, stop, stopStarted } from './serve-process.ts';
import { run } from './run.ts';
import { freePort } from '../support/ports.ts';
import { until } from '../support/waiting.ts';

const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;

/** The version of se-4b a new client gets. */
async function hashListVersion(url: string): Promise<string> {
  const response = await fetch(`${url}/v5/hashList/se-4b`, { headers: { accept: 'application/json' } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { version: string }).version;
}

/** Resolves once the server's standard error matches `pattern`; rejects after `ms`. */
function logged(server: { child: ChildProcess; stderr: () => string }, pattern: RegExp, ms = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = server.child.stderr!;
    const look = () => {
      if (!pattern.test(server.stderr())) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`not logged: ${pattern}\n${server.stderr()}`));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      stream.off('data', look);
    };
    stream.on('data', look);
    look();
  });
}

/** Runs `body` in a new temporary folder, removed after it. */
async function inFolder(prefix: string, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The status of POST /admin/resume with this bearer token. */
async function resumeWith(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/admin/resume`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status;
}

after(stopStarted);

/** A 4-byte prefix as a client searches for it: what the log must never hold. */
const PREFIX = Buffer.from([0xfa, 0xce, 0xb0, 0x0c]).toString('base64');

describe("sbkit serve's log", () => {
  it('writes JSON lines off a terminal, a line per request with --access-log, and lists unchanged bad lines once', async () => {
    await inFolder('sbkit-log-', async (dir) => {
      await writeFile(join(dir, 'hosts.txt'), '0.0.0.0 evil.example\n0.0.0.0 -not-a-host-\n');
      await writeFile(join(dir, 'more.txt'), 'bad.example/login\n');
      const lists = [
        {
          name: 'mw-4b',
          threatTypes: ['MALWARE'],
          sources: [
            { file: 'hosts.txt', format: 'hosts' },
            { file: 'more.txt', format: 'urls' },
          ],
        },
      ];
      await writeFile(join(dir, 'sbkit.json'), JSON.stringify({ lists }));
      const server = await serve('--config', join(dir, 'sbkit.json'), '--access-log');
      const answers = await Promise.all(
        [1, 2].map(() =>
          fetch(`${server.url}/v5/hashes:search?hashPrefixes=${encodeURIComponent(PREFIX)}`, { headers: { 'x-request-id': 'mine' } }),
        ),
      );
      const ids = answers.map((answer) => answer.headers.get('x-request-id'));
      assert.ok(ids[0] !== null && ids[1] !== null && ids[0] !== ids[1] && !ids.includes('mine'), ids.join(' '));
      await logged(server, new RegExp(`"reqId":"${ids[1]}"`));
      // Another source of the list changes: the list is published again, its hosts file's bad line is the same.
      await writeFile(join(dir, 'more.txt'), 'bad.example/login\nworse.example/\n');
      server.child.kill('SIGHUP');
      await logged(server, /not listed again \(once so far\)/);
      const lines = server
        .stderr()
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const line of lines)
        assert.ok(typeof line['level'] === 'string' && typeof line['time'] === 'string' && typeof line['msg'] === 'string');
      assert.equal(lines.filter((line) => /line 2: /.test(String(line['msg']))).length, 1, 'the bad line listed once');
      const requests = lines.filter((line) => line['msg'] === 'request');
      assert.deepEqual(
        requests.map(({ reqId, method, route, status, client }) => ({ reqId, method, route, status, client })),
        ids.map((reqId) => ({ reqId, method: 'GET', route: '/v5/hashes:search', status: 200, client: 'bot' })),
      );
      assert.ok(!server.stderr().includes(PREFIX) && !server.stderr().includes(encodeURIComponent(PREFIX)), server.stderr());
    });
  });

  it('--log-level warn leaves out what the server did and keeps what went wrong', async () => {
    await inFolder('sbkit-log-level-', async (dir) => {
      await writeFile(join(dir, 'hosts.txt'), '0.0.0.0 evil.example\n0.0.0.0 -not-a-host-\n');
      const lists = [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: 'hosts.txt', format: 'hosts' }] }];
      await writeFile(join(dir, 'sbkit.json'), JSON.stringify({ lists }));
      const port = await freePort();
      const args = ['serve', '--port', String(port), '--config', join(dir, 'sbkit.json'), '--log-level', 'warn'];
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const answers = async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200;
      try {
        await until(20_000, 'sbkit serve answering', answers);
      } finally {
        // Stopped and gone: every line it would write (listening, stopping, stopped: all info) is written.
        await stop(child);
      }
      const lines = stderr
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { level: string; msg: string });
      assert.deepEqual(
        lines.map(({ level }) => level),
        ['warn'],
        stderr,
      );
      assert.match(lines[0]!.msg, /^list mw-4b: \S*hosts\.txt, line 2: /);
    });
  });
});

describe('sbkit serve', () => {
  it("serves the embedded demo lists, which sbkit check finds Google's phishing test page in", async () => {
    const { url, stderr } = await serve();
    assert.match(stderr(), /with the embedded demo lists: se-4b \(4\), mw-4b/);
    const phishing = await run(['check', '--server', url, 'http://testsafebrowsing.appspot.com/s/phishing.html']);
    assert.equal(phishing.status, EXIT.UNSAFE);
    assert.match(phishing.out, /^UNSAFE\s+http:\/\/testsafebrowsing\.appspot\.com\/s\/phishing\.html: suspected social engineering/m);
    const safe = await run(['check', '--server', url, 'http://example.com/']);
    assert.equal(safe.status, EXIT.SAFE);
  });

  it('serves the lists of a configuration file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-serve-'));
    try {
      await writeFile(join(dir, 'hosts.txt'), '0.0.0.0 evil.example\n127.0.0.1 localhost\n0.0.0.0 -not-a-host-\n');
      await writeFile(
        join(dir, 'sbkit.json'),
        JSON.stringify({
          lists: [
            {
              name: 'mw-4b',
              threatTypes: ['MALWARE'],
              sources: [{ file: 'hosts.txt', format: 'hosts' }, { entries: ['bad.example/login'] }],
            },
          ],
        }),
      );
      const { url, stderr } = await serve('--config', join(dir, 'sbkit.json'));
      assert.match(stderr(), /list mw-4b: 2 entries, 1 bad lines/);
      assert.match(stderr(), /"msg":"list mw-4b: \S*hosts\.txt, line 3: /, 'the bad line, where it is and why');
      const result = await run([
        'check',
        '--server',
        url,
        '--json',
        'http://www.evil.example/any/page',
        'http://bad.example/login',
        'http://bad.example/',
      ]);
      assert.deepEqual(
        (JSON.parse(result.out) as { verdict: string }[]).map((r) => r.verdict),
        ['UNSAFE', 'UNSAFE', 'SAFE'],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('acts as a caching proxy of another server with --upstream', async () => {
    const authority = await serve();
    const proxy = await serve('--upstream', authority.url);
    assert.match(proxy.stderr(), new RegExp(`with a mirror of ${authority.url.replace(/[.]/g, '\\.')}`));
    const result = await run(['check', '--server', proxy.url, 'http://testsafebrowsing.appspot.com/s/malware.html', 'http://example.com/']);
    assert.equal(result.status, EXIT.UNSAFE);
    assert.match(result.out, /^UNSAFE\s+http:\/\/testsafebrowsing\.appspot\.com\/s\/malware\.html: suspected malware/m);
    assert.match(result.out, /^SAFE\s+http:\/\/example\.com\/$/m);
  });

  it("takes a proxy's API keys, admin token and load control from a --config without lists", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-proxy-config-'));
    try {
      const config = join(dir, 'proxy.json');
      await writeFile(
        config,
        JSON.stringify({ apiKeys: ['proxy-key'], adminToken: '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7', loadControl: { burstMax: 50 } }),
      );
      const authority = await serve();
      const proxy = await serve('--upstream', authority.url, '--config', config);
      // A search, which the proxy answers from the start (its listing of lists waits for a copy of them).
      const search = `${proxy.url}/v5/hashes:search?hashPrefixes=AAAAAA%3D%3D`;
      assert.equal((await fetch(search)).status, 403, 'no key: refused as Google refuses it');
      assert.equal((await fetch(`${search}&key=proxy-key`)).status, 200);
      const pause = await fetch(`${proxy.url}/admin/pause`, {
        method: 'POST',
        headers: { authorization: 'Bearer 9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7' },
      });
      assert.equal(pause.status, 200);
      assert.equal((await fetch(`${search}&key=proxy-key`)).status, 503);

      await writeFile(config, JSON.stringify({ lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [] }] }));
      const withLists = await run(['serve', '--port', '0', '--upstream', authority.url, '--config', config]);
      assert.equal(withLists.status, EXIT.INVALID_INPUT);
      assert.match(withLists.err, /a proxy serves its upstream's lists; leave "lists" out/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("takes a proxy's upstream key from --upstream-key, else SBKIT_UPSTREAM_KEY or its file, else the configuration, and never shows it", () =>
    inFolder('sbkit-upstream-key-', async (dir) => {
      const key = 'AIzaSy-upstream-key-of-the-test';
      const keyFile = join(dir, 'upstream-key');
      await writeFile(
        join(dir, 'authority.json'),
        JSON.stringify({
          apiKeys: [key],
          lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }],
        }),
      );
      await writeFile(keyFile, `${key}\n`);
      await writeFile(join(dir, 'proxy.json'), JSON.stringify({ upstreamKeyFile: 'upstream-key' }));
      await writeFile(join(dir, 'wrong.json'), JSON.stringify({ upstreamKey: 'wrong-key' }));
      const authority = await serve('--config', join(dir, 'authority.json'));
      // A search the proxy cannot answer from its cache goes to the authority, which answers only its key.
      const verdict = async (proxy: { url: string }) => (await run(['check', '--server', proxy.url, 'http://evil.example/'])).status;
      const keyless = await serve('--upstream', authority.url);
      assert.equal(await verdict(keyless), EXIT.FAILED, 'without the key the authority refuses the proxy');
      const proxies = [
        await startWith({ SBKIT_UPSTREAM_KEY_FILE: keyFile }, 'serve', '--upstream', authority.url),
        await startWith({ SBKIT_UPSTREAM_KEY: key }, 'serve', '--upstream', authority.url, '--config', join(dir, 'wrong.json')),
        await startWith(
          { SBKIT_UPSTREAM_KEY: 'wrong-key' },
          ...['serve', '--upstream', authority.url, '--upstream-key', key, '--config', join(dir, 'wrong.json')],
        ),
        await serve('--upstream', authority.url, '--config', join(dir, 'proxy.json')),
      ];
      for (const proxy of proxies) {
        assert.equal(await verdict(proxy), EXIT.UNSAFE, proxy.stderr());
        assert.ok(!proxy.stderr().includes(key), proxy.stderr());
      }
      const both = await withEnvironment({ SBKIT_UPSTREAM_KEY: key, SBKIT_UPSTREAM_KEY_FILE: keyFile }, () =>
        run(['serve', '--port', '0', '--upstream', authority.url]),
      );
      assert.equal(both.status, EXIT.INVALID_INPUT);
      assert.match(both.err, /SBKIT_UPSTREAM_KEY and SBKIT_UPSTREAM_KEY_FILE are both set/);
    }));

  it('takes the admin token from SBKIT_ADMIN_TOKEN_FILE over the configuration, also after a reload, and reads no upstream key without --upstream', () =>
    inFolder('sbkit-admin-token-', async (dir) => {
      const token = '7d2f9b4e1a6c03e8b5d7f2a9c4e1b60d';
      const [configured, reloaded] = ['e4b1c8f3a0d95b2e7c6f1a8d3b0e49c7', '2a9e6d1f8c3b07e5a4d9f2c6b1e83a0f'];
      const config = join(dir, 'sbkit.json');
      const list = { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] };
      await writeFile(join(dir, 'admin-token'), `${token}\n`);
      await writeFile(config, JSON.stringify({ adminToken: configured, lists: [list] }));
      const demo = await startWith(
        { SBKIT_ADMIN_TOKEN_FILE: join(dir, 'admin-token'), SBKIT_UPSTREAM_KEY_FILE: join(dir, 'none') },
        'serve',
      );
      assert.equal(await resumeWith(demo.url, token), 200, 'the operator endpoints without a configuration');
      const server = await startWith({ SBKIT_ADMIN_TOKEN_FILE: join(dir, 'admin-token') }, 'serve', '--config', config);
      assert.equal(await resumeWith(server.url, token), 200);
      assert.equal(await resumeWith(server.url, configured), 401);
      await writeFile(config, JSON.stringify({ adminToken: reloaded, lists: [list] }));
      server.child.kill('SIGHUP');
      await logged(server, /reloaded \S+sbkit\.json/);
      assert.equal(await resumeWith(server.url, token), 200);
      assert.equal(await resumeWith(server.url, reloaded), 401);
      for (const { stderr } of [demo, server]) assert.ok(!stderr().includes(token), stderr());

      const weak = await withEnvironment({ SBKIT_ADMIN_TOKEN: 'short-token', SBKIT_ADMIN_TOKEN_FILE: undefined }, () =>
        run(['serve', '--port', '0']),
      );
      assert.equal(weak.status, EXIT.INVALID_INPUT);
      assert.match(weak.err, /the admin token of SBKIT_ADMIN_TOKEN has 11 characters, fewer than the 32/);
      assert.ok(!weak.err.includes('short-token'));
    }));

  it("shares a proxy's cached searches (and mirrored lists, once fetched) through Redis with --upstream --redis", async () => {
    await ensureRedis();
    const prefix = uniqueKeyPrefix();
    try {
      const authority = await serve();
      const proxy = await serve('--upstream', authority.url, '--redis', REDIS_URL, '--redis-prefix', prefix);
      assert.match(proxy.stderr(), /shared through Redis/);
      const result = await run(['check', '--server', proxy.url, 'http://testsafebrowsing.appspot.com/s/phishing.html']);
      assert.equal(result.status, EXIT.UNSAFE);
      assert.ok(
        (await keysUnder(prefix)).some((key) => key.startsWith(`${prefix}search:`)),
        'the search answer is in Redis',
      );
    } finally {
      await deleteKeys(prefix);
    }
  });

  it('puts load control in front of every route unless --no-load-control', async () => {
    const burst = async (url: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++)
        statuses.push((await fetch(`${url}/v5/hashLists`, { headers: { 'user-agent': 'burst-test/1' } })).status);
      return statuses;
    };
    const guarded = await serve();
    assert.deepEqual(await burst(guarded.url), [...Array<number>(11).fill(200), 503]);
    assert.match(
      await (await fetch(`${guarded.url}/metrics`, { headers: { 'user-agent': 'prometheus/2' } })).text(),
      /sbkit_requests_refused_total\{class="bot",reason="rate"\} 1/,
    );
    const open = await serve('--no-load-control');
    assert.deepEqual(await burst(open.url), Array(12).fill(200));
  });

  it('reports a running server with sbkit status, for people and as JSON', async () => {
    const server = await serve();
    const human = await run(['status', '--server', server.url]);
    assert.equal(human.status, EXIT.SAFE);
    assert.match(human.out, /^sbkit \d+\.\d+\.\d+ at http:\/\/127\.0\.0\.1:\d+, serving the embedded demo lists/);
    assert.match(human.out, /^se-4b\s+[0-9a-f]{12}\s+4\s/m);
    assert.match(human.out, /^load control: \d+ in progress, 0 waiting, limits in memory; refused: none$/m);
    const json = await run(['status', '--server', server.url, '--json']);
    assert.equal((JSON.parse(json.out) as { lists: unknown[] }).lists.length, 9);
    const down = await run(['status', '--server', 'http://127.0.0.1:9']);
    assert.equal(down.status, EXIT.FAILED);
    assert.match(down.err, /sbkit status: cannot read http:\/\/127\.0\.0\.1:9\/status\.json: .*is "sbkit serve" running there\?/);
    const notUrl = await run(['status', '--server', 'notaurl']);
    assert.equal(notUrl.status, EXIT.INVALID_INPUT);
    assert.match(notUrl.err, /--server must be an http\(s\) URL/);
  });

  it('checks URLs through an Oblivious HTTP relay with check --ohttp-relay (sbkit relay in front of sbkit serve)', async () => {
    const gateway = await serve();
    const relay = await start('relay', '--gateway', `${gateway.url}/ohttp-gateway`);
    assert.match(relay.url, /\/ohttp-relay$/);
    const result = await run([
      'check',
      '--server',
      gateway.url,
      '--ohttp-relay',
      relay.url,
      '--ohttp-keys',
      `${gateway.url}/ohttp-keys`,
      'http://testsafebrowsing.appspot.com/s/phishing.html',
      'http://example.com/',
    ]);
    assert.equal(result.status, EXIT.UNSAFE, result.err);
    assert.match(result.out, /^UNSAFE\s+http:\/\/testsafebrowsing\.appspot\.com\/s\/phishing\.html/m);
    assert.match(result.out, /^SAFE\s+http:\/\/example\.com\/$/m);
    assert.equal((await run(['check', '--ohttp-relay', relay.url, 'http://example.com/'])).status, EXIT.INVALID_INPUT);
  });

  it('serves every client of a relay named with --trusted-relay, where an untrusted relay is one client limited to 11 requests in 15 s', async () => {
    const counts = async (gatewayFlags: string[]) => {
      const gateway = await serve(...gatewayFlags);
      const relay = await start('relay', '--gateway', `${gateway.url}/ohttp-gateway`);
      const [config] = parseKeyConfigs(new Uint8Array(await (await fetch(`${gateway.url}/ohttp-keys`)).arrayBuffer()));
      const statuses: number[] = [];
      for (let person = 0; person < 13; person++) {
        const inner = encodeBinaryHttpRequest({
          method: 'GET',
          scheme: 'http',
          authority: 'sb',
          path: '/v5/hashLists',
          headers: [],
          content: new Uint8Array(0),
        });
        const { message } = await encapsulateRequest(config!, inner);
        const answer = await fetch(relay.url, {
          method: 'POST',
          headers: { 'content-type': 'message/ohttp-req', 'user-agent': `person-${person}` },
          body: message,
        });
        statuses.push(answer.status);
      }
      return statuses;
    };
    assert.deepEqual(await counts(['--trusted-relay', '127.0.0.1']), Array(13).fill(200));
    assert.deepEqual(await counts([]), [...Array<number>(11).fill(200), 503, 503]);
  });

  it('serves /admin/* and /metrics on --admin-listen only', async () => {
    const { url, stderr } = await serve('--admin-listen', '127.0.0.1:0');
    const admin = /\/admin\/\* and \/metrics on (http:\/\/\S+) only/.exec(stderr())?.[1];
    assert.ok(admin !== undefined, stderr());
    assert.equal((await fetch(`${url}/metrics`)).status, 404);
    assert.equal((await fetch(`${admin}/metrics`)).status, 200);
  });

  it('refuses flags that do not go together', async () => {
    assert.equal((await run(['serve', '--redis', 'redis://127.0.0.1:6379'])).status, EXIT.INVALID_INPUT);
    const proxy = await run(['serve', '--port', '0', '--trusted-proxy', '10.0.0.0/33']);
    assert.equal(proxy.status, EXIT.INVALID_INPUT);
    assert.match(proxy.err, /--trusted-proxy: trusted proxy "10\.0\.0\.0\/33" is neither an IP address nor a CIDR block/);
    const relay = await run(['serve', '--port', '0', '--trusted-relay', 'relay.example']);
    assert.equal(relay.status, EXIT.INVALID_INPUT);
    assert.match(relay.err, /--trusted-relay: trusted relay "relay\.example" is neither an IP address nor a CIDR block/);
    assert.equal(
      (await run(['serve', '--port', '0', '--ohttp-overlap', '1440'])).status,
      EXIT.INVALID_INPUT,
      'an overlap as long as the rotation',
    );
    const admin = await run(['serve', '--port', '0', '--admin-listen', '127.0.0.1']);
    assert.equal(admin.status, EXIT.INVALID_INPUT);
    assert.match(admin.err, /--admin-listen must be HOST:PORT/);
    // An origin is scheme, host and port: a path or a capital is refused before anything listens, however many are given.
    for (const origins of [['https://mail.example/'], ['chrome-extension://abcdefghijklmnopabcdefghijklmnop', 'https://Mail.example']]) {
      const cors = await run(['serve', '--port', '0', '--cors-origin', ...origins]);
      assert.equal(cors.status, EXIT.INVALID_INPUT, origins.join(' '));
      assert.match(cors.err, /^sbkit serve: --cors-origin: "https:\/\/(mail|Mail)\.example\/?" is no origin: write "\*", a web origin/);
    }
    const relayProxy = await run(['relay', '--gateway', 'http://127.0.0.1:9/ohttp-gateway', '--port', '0', '--trusted-proxy', 'lb']);
    assert.equal(relayProxy.status, EXIT.INVALID_INPUT);
    assert.match(relayProxy.err, /--trusted-proxy: trusted proxy "lb"/);
  });

  it('refuses flags that would do nothing without the flag they serve, rather than ignore them', async () => {
    const cases: [string[], RegExp][] = [
      [['serve', '--upstream-key', 'AIzaSy-flag-key'], /^sbkit serve: --upstream-key goes with --upstream, the server to mirror/],
      [['serve', '--upstream-protocol', 'v4'], /^sbkit serve: --upstream-protocol goes with --upstream/],
      [['serve', '--redis-prefix', 'sbkit:blue:'], /^sbkit serve: --redis-prefix goes with --redis/],
      [
        ['relay', '--gateway', 'http://127.0.0.1:9/ohttp-gateway', '--redis-prefix', 'sbkit:blue:'],
        /^sbkit: --redis-prefix goes with --redis/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await run([...args, '--port', '0']);
      assert.equal(result.status, EXIT.INVALID_INPUT, args.join(' '));
      assert.match(result.err, message);
      assert.ok(!result.err.includes('AIzaSy-flag-key'));
    }
    await inFolder('sbkit-idle-key-', async (dir) => {
      await writeFile(join(dir, 'sbkit.json'), JSON.stringify({ upstreamKey: 'AIzaSy-config-key', lists: [] }));
      const idle = await run(['serve', '--port', '0', '--config', join(dir, 'sbkit.json')]);
      assert.equal(idle.status, EXIT.INVALID_INPUT);
      assert.match(
        idle.err,
        /sbkit\.json: upstreamKey: is the key of an upstream to mirror \(upstreamKey or upstreamKeyFile\); this server mirrors none/,
      );
      assert.ok(!idle.err.includes('AIzaSy-config-key'));
    });
  });

  it('starts with --redis while Redis does not answer, not ready until it does, and refuses a Redis URL that is none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-serve-redis-'));
    const relay = await RedisRelay.start();
    await relay.cut();
    try {
      const config = join(dir, 'sbkit.json');
      await writeFile(
        config,
        JSON.stringify({
          lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/', 'bad.example/'] }] }],
        }),
      );
      const instance = await serve('--config', config, '--redis', relay.url, '--redis-prefix', uniqueKeyPrefix());
      assert.match(instance.stderr(), /lists: Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer \(.*\); starting without it/);
      assert.match(instance.stderr(), /: se-4b \(2\)/, 'serving its own list');
      const ready = await fetch(`${instance.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal(((await ready.json()) as { status: string }).status, 'not-ready');

      const invalid = await run(['serve', '--port', '0', '--config', config, '--redis', 'http://127.0.0.1:6379']);
      assert.equal(invalid.status, EXIT.INVALID_INPUT);
      assert.match(invalid.err, /is not a Redis URL/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the published versions in --data across a restart, and refuses --data with --redis or without lists of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-serve-data-'));
    try {
      const config = join(dir, 'sbkit.json');
      const data = join(dir, 'data');
      await writeFile(join(dir, 'feed.txt'), 'evil.example/\n');
      await writeFile(
        config,
        JSON.stringify({
          lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: 'feed.txt', format: 'expressions' }] }],
        }),
      );
      const first = await serve('--config', config, '--data', data);
      const published = await hashListVersion(first.url);
      await stop(first.child);
      await rm(join(dir, 'feed.txt'));
      const second = await serve('--config', config, '--data', data);
      assert.match(second.stderr(), /list se-4b: restored 2 of 2 kept versions from /);
      assert.match(second.stderr(), /: se-4b \(1\)/, 'serving the version from before the restart while its feed is missing');
      assert.equal(await hashListVersion(second.url), published);

      const withRedis = await run(['serve', '--port', '0', '--config', config, '--data', data, '--redis', 'redis://127.0.0.1:6379']);
      assert.equal(withRedis.status, EXIT.INVALID_INPUT);
      assert.match(withRedis.err, /--data keeps this instance's list versions on disk, and --redis keeps them in Redis for every instance/);
      await writeFile(config, JSON.stringify({ dataDir: 'data', lists: [] }));
      const configured = await run(['serve', '--port', '0', '--config', config, '--redis', 'redis://127.0.0.1:6379']);
      assert.equal(configured.status, EXIT.INVALID_INPUT);
      assert.match(configured.err, /the dataDir of .*sbkit\.json keeps/);
      const demo = await run(['serve', '--port', '0', '--data', data]);
      assert.equal(demo.status, EXIT.INVALID_INPUT);
      assert.match(demo.err, /--data keeps the lists of a --config, or the mirror of an --upstream/);
      const help = await run(['serve', '--help']);
      assert.match(
        help.out.replace(/\s+/g, ' '),
        /--data <dir> folder that keeps the lists across restarts.*with --config.*with --upstream/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a configuration with a clear message and exit status 4', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-serve-'));
    try {
      await writeFile(
        join(dir, 'bad.json'),
        JSON.stringify({ lists: [{ name: 'x', threatTypes: ['MALWARE'], sources: [], colour: 'red' }] }),
      );
      const result = await run(['serve', '--port', '0', '--config', join(dir, 'bad.json')]);
      assert.equal(result.status, EXIT.INVALID_INPUT);
      assert.match(result.err, /lists\[0\]/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
