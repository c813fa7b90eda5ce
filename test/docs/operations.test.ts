// docs/operations.md's deployment blocks, run: the systemd unit's ExecStart (paths and ports replaced)
// starts the built CLI over TLS, its ExecReload reloads it, its stop signal stops it within its
// TimeoutStopSec (and systemd-analyze, where installed, finds nothing to say about the unit); the
// credentials drop-in's variables, with its credentials folder made as systemd makes it, give the
// server its admin token; every
// sbkit_ series the monitoring section and its alert rules name is one a running server exposes; and
// the backup commands, run while a server publishes several versions a second, give copies a server
// restores every kept version from; the TLS section's curl and openssl checks see HTTP/2 and the served
// certificate, and the certbot deploy hook installs a renewed pair that the server then serves. (The
// nginx blocks run in test/docs/nginx.test.ts, test/server/edge-cache.test.ts and test/bench/chaos.test.ts.)

import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readFileSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { TestCa } from '../server/tls-fixture.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from '../server/redis-fixture.ts';
import { until } from '../support/waiting.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist', 'cli', 'bin.js');
const DOCS = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
const TOKEN = randomBytes(32).toString('hex');
const execFileAsync = promisify(execFile);

/** The text of a `## ` section of docs/operations.md. */
function section(heading: string): string {
  const start = DOCS.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/operations.md has a section "${heading}"`);
  const end = DOCS.indexOf('\n## ', start + 1);
  return DOCS.slice(start, end < 0 ? undefined : end);
}

/** The fenced blocks of `language` in `text`. */
function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

interface Serving {
  child: ChildProcess;
  log: () => string;
  logged: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; atMs: number }>;
}

const children: ChildProcess[] = [];
let dir: string;

/** `sbkit serve` with `args` (and these environment variables), resolved once it says it listens. */
async function serve(args: string[], variables: Record<string, string> = {}): Promise<Serving> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...variables } });
  children.push(child);
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<{ code: number | null; atMs: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, atMs: performance.now() })),
  );
  const logged = async (pattern: RegExp, ms = 20_000) => {
    const deadline = performance.now() + ms;
    for (;;) {
      const match = pattern.exec(log);
      if (match !== null) return match;
      if (performance.now() > deadline || child.exitCode !== null) throw new Error(`not logged: ${pattern}\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await logged(/listening on https?:\/\/\S+ with/);
  return { child, log: () => log, logged, exited };
}

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-operations-'));
});
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** The unit's [Service] settings; a key given more than once keeps every value. */
function unitSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match === null) continue;
    settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  return settings;
}

describe("docs/operations.md's systemd unit", () => {
  const [unit] = blocks(section('One machine'), 'ini');

  it(
    'is well-formed as systemd reads it',
    { skip: spawnSync('systemd-analyze', ['--version']).error ? 'no systemd-analyze' : false },
    async () => {
      assert.ok(unit !== undefined, 'an ini block');
      // systemd-analyze checks that the binary exists: name one that does.
      const file = join(dir, 'sbkit.service');
      await writeFile(file, unit.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`));
      const verified = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(verified.status, 0, verified.stderr);
      assert.equal(`${verified.stdout}${verified.stderr}`.trim(), '', 'no unknown keys, no bad values');
    },
  );

  it('starts the server over TLS, reloads it on ExecReload and stops it within TimeoutStopSec', { timeout: 60_000 }, async () => {
    assert.ok(unit !== undefined, 'an ini block');
    const settings = unitSettings(unit);
    const [execStart] = settings.get('ExecStart')!;
    const words = execStart!.split(' ');
    assert.match(words[0]!, /\/sbkit$/, 'ExecStart runs the sbkit binary');
    const flag = (name: string) => words[words.indexOf(name) + 1]!;
    const shutdownSeconds = Number(flag('--shutdown-timeout'));
    assert.ok(Number(settings.get('TimeoutStopSec')![0]) > shutdownSeconds, 'systemd waits longer than the server lets requests finish');
    assert.deepEqual(settings.get('RestartPreventExitStatus'), ['4'], "a configuration mistake's exit status (4) is not restarted");

    const ca = await TestCa.create(dir);
    const issued = await ca.issue('localhost');
    const etc = join(dir, 'etc-sbkit');
    await mkdir(join(etc, 'tls'), { recursive: true });
    await writeFile(join(etc, 'tls', 'fullchain.pem'), readFileSync(issued.cert));
    await writeFile(join(etc, 'tls', 'privkey.pem'), readFileSync(issued.key));
    await writeFile(
      join(etc, 'sbkit.json'),
      JSON.stringify({
        adminToken: TOKEN,
        lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }],
      }),
    );
    const args = words
      .slice(1)
      .join(' ')
      .replaceAll('/etc/sbkit', etc)
      .replaceAll('/var/lib/sbkit', join(dir, 'var-lib-sbkit'))
      .replace('--host 0.0.0.0', '--host 127.0.0.1')
      .replace(/--port \d+/, '--port 0')
      .replace(/--admin-listen 127\.0\.0\.1:\d+/, '--admin-listen 127.0.0.1:0')
      .split(' ');
    const server = await serve(args);
    const url = (await server.logged(/listening on (https:\/\/\S+) with/))[1]!;
    const health = await httpsGet(`${url.replace('127.0.0.1', 'localhost')}/healthz`, ca.cert);
    assert.deepEqual(health, { status: 200, body: '{"status":"ok"}' });
    const admin = (await server.logged(/\/admin\/\* and \/metrics on (http:\/\/\S+) only/))[1]!;
    assert.equal((await fetch(`${admin}/metrics`)).status, 200, '/metrics on the admin listener');

    const [reload] = settings.get('ExecReload')!;
    const [command, ...reloadArgs] = reload!.replace('$MAINPID', String(server.child.pid)).split(' ');
    assert.equal(spawnSync(command!, reloadArgs).status, 0, `${reload} ran`);
    await server.logged(/reloaded \S+sbkit\.json and the certificate/);

    const signal = (settings.get('KillSignal')?.[0] ?? 'SIGTERM') as NodeJS.Signals;
    const stopAt = performance.now();
    server.child.kill(signal);
    const { code, atMs } = await server.exited;
    assert.equal(code, 0);
    assert.ok(atMs - stopAt < Number(settings.get('TimeoutStopSec')![0]) * 1000);
    assert.match(server.log(), /stopped/);
  });
});

describe("docs/operations.md's credentials drop-in", () => {
  it("hands sbkit serve the admin token through systemd's credentials folder, which the log never shows", { timeout: 30_000 }, async () => {
    const [dropIn] = blocks(section('Keys and tokens'), 'ini');
    assert.ok(dropIn !== undefined, 'an ini block');
    const settings = unitSettings(dropIn);
    // What systemd does at start: each LoadCredential= copied into the service's credentials folder (%d).
    const credentials = join(dir, 'credentials');
    await mkdir(credentials, { recursive: true });
    for (const credential of settings.get('LoadCredential') ?? []) {
      const [name] = credential.split(':');
      await writeFile(join(credentials, name!), `${TOKEN}\n`);
    }
    const variables = Object.fromEntries(
      (settings.get('Environment') ?? []).map((assignment) => {
        const [name, value] = assignment.split(/=(.*)/);
        return [name!, value!.replaceAll('%d', credentials)];
      }),
    );
    assert.deepEqual(Object.keys(variables), ['SBKIT_ADMIN_TOKEN_FILE']);
    const server = await serve(['serve', '--port', '0'], variables);
    const url = (await server.logged(/listening on (http:\/\/\S+) with/))[1]!;
    const resume = (token: string) => fetch(`${url}/admin/resume`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal((await resume(TOKEN)).status, 200);
    assert.equal((await resume(randomBytes(32).toString('hex'))).status, 401);
    server.child.kill('SIGTERM');
    await server.exited;
    assert.ok(!server.log().includes(TOKEN));
  });
});

/** Whether this curl speaks HTTP/2: "HTTP2" among the features `curl --version` lists. */
function curlHasHttp2(): boolean {
  const version = spawnSync('curl', ['--version'], { encoding: 'utf8' });
  return version.status === 0 && /^Features:.*\bHTTP2\b/m.test(version.stdout);
}

describe("docs/operations.md's TLS checks and certbot deploy hook, against sbkit serve over TLS", () => {
  const checks = blocks(section('TLS and HTTP/2'), 'sh').find((block) => block.includes('curl --http2'));
  let tls: string;
  let caDir: string;
  let ca: TestCa;
  let server: Serving;
  let port: number;

  before(async () => {
    tls = join(dir, 'deploy-hook-tls');
    caDir = join(dir, 'deploy-hook-ca');
    for (const folder of [tls, caDir]) await mkdir(folder, { recursive: true });
    ca = await TestCa.create(caDir);
    const issued = await ca.issue('sb.example.org');
    await writeFile(join(tls, 'fullchain.pem'), readFileSync(issued.cert));
    await writeFile(join(tls, 'privkey.pem'), readFileSync(issued.key));
    server = await serve(['serve', '--tls-cert', join(tls, 'fullchain.pem'), '--tls-key', join(tls, 'privkey.pem'), '--port', '0']);
    port = Number(new URL((await server.logged(/listening on (https:\/\/\S+) with/))[1]!).port);
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  /** A line of the checks block, run by bash against this server, and what it printed; the comment after `#` is the output the docs give. */
  function checkLine(command: string): { run: string; documented: string | undefined } {
    const line = checks?.split('\n').find((l) => l.startsWith(command));
    assert.ok(line !== undefined, `docs/operations.md "TLS and HTTP/2" shows a ${command} line`);
    const [code, documented] = line.split(/\s+# /);
    const run = code!
      .replace('--cacert ca.pem', `--cacert ${join(caDir, 'ca.pem')}`)
      .replace('https://sb.example.org/', `https://localhost:${port}/`)
      .replace('sb.example.org:443', `localhost:${port}`);
    return { run: spawnSync('bash', ['-o', 'pipefail', '-c', run], { encoding: 'utf8', timeout: 30_000 }).stdout, documented };
  }

  it(
    'curl --http2 gets /healthz over HTTP/2, as the comment shows',
    { skip: curlHasHttp2() ? false : 'this curl lacks HTTP/2 (no HTTP2 among the features of curl --version)' },
    () => {
      const { run, documented } = checkLine('curl --http2');
      assert.equal(documented, '{"status":"ok"} 2');
      assert.equal(run.trim(), documented);
    },
  );

  it('openssl s_client sees ALPN h2 and the certificate served', () => {
    const { run } = checkLine('openssl s_client');
    assert.match(run, /^ALPN protocol: h2$/m);
    assert.match(run, /^subject=CN ?= ?sb\.example\.org$/m);
  });

  it('the certbot deploy hook installs the renewed pair and has the server serve it', async () => {
    const [hook] = blocks(section('One machine'), 'sh').filter((block) => block.includes('RENEWED_LINEAGE'));
    assert.ok(hook !== undefined, 'a sh block of the deploy hook');
    // certbot's live folder of the renewed certificate.
    const lineage = join(dir, 'letsencrypt-live');
    await mkdir(lineage, { recursive: true });
    const renewed = await ca.issue('renewed.sb.example.org');
    await writeFile(join(lineage, 'fullchain.pem'), readFileSync(renewed.cert));
    await writeFile(join(lineage, 'privkey.pem'), readFileSync(renewed.key));
    // systemctl as the unit's ExecReload has it: `systemctl reload sbkit` sends the server SIGHUP; the call is recorded.
    const bin = join(dir, 'stub-bin');
    const calls = join(dir, 'systemctl-calls');
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, 'systemctl'),
      `#!/bin/sh\necho "$*" >> ${calls}\nif [ "$*" = "reload sbkit" ]; then kill -HUP ${server.child.pid}; fi\n`,
      { mode: 0o755 },
    );
    // The test's own user and group stand for root and sbkit, which it cannot give files to.
    const owner = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();
    const group = spawnSync('id', ['-gn'], { encoding: 'utf8' }).stdout.trim();
    assert.match(hook, /-o root -g sbkit /);
    const script = hook.replace('-o root -g sbkit ', `-o ${owner} -g ${group} `).replaceAll('/etc/sbkit/tls/', `${tls}/`);
    const ran = spawnSync('sh', ['-e', '-c', script], {
      encoding: 'utf8',
      env: { ...process.env, RENEWED_LINEAGE: lineage, PATH: `${bin}:${process.env.PATH ?? ''}` },
      timeout: 30_000,
    });
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(readFileSync(calls, 'utf8'), 'reload sbkit\n', 'the hook reloads the service');
    for (const file of ['fullchain.pem', 'privkey.pem']) {
      assert.deepEqual(readFileSync(join(tls, file)), readFileSync(join(lineage, file)), `${file} installed`);
      assert.equal(statSync(join(tls, file)).mode & 0o777, 0o640, `${file} is 0640`);
    }
    await server.logged(/reloaded the certificate/);
    const { run } = checkLine('openssl s_client');
    assert.match(run, /^subject=CN ?= ?renewed\.sb\.example\.org$/m, 'new connections get the renewed certificate');
  });
});

describe("docs/operations.md's monitoring", () => {
  const prefix = uniqueKeyPrefix();
  after(() => deleteKeys(prefix));

  it('names only series a running server exposes, in its table and its alert rules', { timeout: 60_000 }, async () => {
    await ensureRedis();
    const text = section('Monitoring');
    const [rules] = blocks(text, 'yaml');
    assert.ok(rules !== undefined, 'alert rules in a yaml block');
    const named = new Set([...text.matchAll(/\bsbkit_[a-z_]+/g)].map((match) => match[0]));
    const inRules = new Set([...rules.matchAll(/\bsbkit_[a-z_]+/g)].map((match) => match[0]));
    assert.ok(inRules.size >= 5, `the rules use ${inRules.size} series`);
    const config = join(dir, 'monitoring.json');
    await writeFile(
      config,
      JSON.stringify({ lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }] }),
    );
    const server = await serve(['serve', '--config', config, '--redis', REDIS_URL, '--redis-prefix', prefix, '--port', '0']);
    const url = (await server.logged(/listening on (http:\/\/\S+) with/))[1]!;
    const exposition = await (await fetch(`${url}/metrics`)).text();
    const exposed = new Set([...exposition.matchAll(/^# TYPE (sbkit_[a-z_]+) /gm)].map((match) => match[1]!));
    for (const name of named) assert.ok(exposed.has(name), `${name} is not served; /metrics has ${[...exposed].join(', ')}`);
    server.child.kill('SIGTERM');
    await server.exited;
  });
});

describe("docs/operations.md's backup commands", () => {
  it('copy a folder that a server restores every kept version from, while it publishes', { timeout: 120_000 }, async () => {
    const [script] = blocks(section('Backups of the data folder'), 'sh').filter((block) => block.includes('rsync'));
    assert.ok(script !== undefined, 'a sh block of rsync commands');
    const data = join(dir, 'data');
    const feed = join(dir, 'backup-feed.txt');
    await writeFile(feed, 'v0.example/\n');
    const config = join(dir, 'backup.json');
    // Two kept versions: each publication removes a file, the race a copy must not lose.
    await writeFile(
      config,
      JSON.stringify({
        adminToken: TOKEN,
        keepVersions: 2,
        lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: feed, format: 'expressions' }] }],
      }),
    );
    const server = await serve(['serve', '--config', config, '--data', data, '--port', '0', '--no-load-control']);
    const url = (await server.logged(/listening on (http:\/\/\S+) with/))[1]!;
    let publishing = true;
    let published = 0;
    const publisher = (async () => {
      for (let n = 1; publishing; n++) {
        const lines = Array.from({ length: 2000 }, (_, i) => `v${n}-${i}.example/`);
        await writeFile(feed, `${lines.join('\n')}\n`);
        await fetch(`${url}/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
        published++;
        // Several a second, not back to back: a copy that met a publication is tried again, and must get its turn.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const copies: string[] = [];
    try {
      for (let round = 0; round < 8; round++) {
        // Each copy meets a publication of its own, however slow the machine makes them.
        const before = published;
        await until(30_000, `publication ${before + 1}`, () => published > before);
        const backups = join(dir, `backups-${round}`);
        // Not spawnSync: the publications go on meanwhile, in this process.
        await execFileAsync('bash', ['-e', '-c', script.replaceAll('/var/lib/sbkit', data).replaceAll('/var/backups/sbkit', backups)], {
          timeout: 60_000,
        });
        const [day] = await readdir(backups);
        copies.push(join(backups, day!));
      }
    } finally {
      publishing = false;
      await publisher;
      server.child.kill('SIGTERM');
      await server.exited;
    }
    assert.ok(published >= 8, `only ${published} publications while copying`);
    // A feed that cannot be read at start keeps the copy's current version in service: the copy is what is served.
    await rm(feed);
    for (const copy of copies) {
      const restored = await serve(['serve', '--config', config, '--data', copy, '--port', '0']);
      assert.match(restored.log(), /list se-4b: restored 2 of 2 kept versions/, `${copy}\n${restored.log()}`);
      assert.doesNotMatch(restored.log(), /cannot be used/);
      restored.child.kill('SIGTERM');
      await restored.exited;
    }
  });
});
