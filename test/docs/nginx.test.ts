// The nginx server block of docs/operations.md, run as written (ports, certificate paths and the IPv6
// listener aside) in front of a real sbkit server: HTTP/2 over TLS to the client, a 1000-prefix search
// through it, and the client's address reaching sbkit through X-Forwarded-For, a forged hop ignored.
// Needs Debian's nginx (.ci/run installs it); skipped, saying so, where it is missing outside CI.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';
import { NGINX_SKIP, requireNginx } from '../server/nginx-fixture.ts';
import { TestCa } from '../server/tls-fixture.ts';
import { freePort } from '../support/ports.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const TOKEN = '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7';

let dir: string;
let ca: TestCa;
let sbkit: SafeBrowsingServer;
let nginx: ChildProcess | undefined;
let nginxUrl: string;
const log: string[] = [];

/** The ```nginx block of docs/operations.md. */
async function documentedBlock(): Promise<string> {
  const markdown = await readFile(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(markdown);
  assert.ok(block !== null, 'docs/operations.md has an nginx block');
  return block[1]!;
}

before(async () => {
  if (NGINX_SKIP !== false) return;
  dir = await mkdtemp(join(tmpdir(), 'sbkit-nginx-'));
  ca = await TestCa.create(dir);
  const issued = await ca.issue('localhost');
  sbkit = createServer({
    catalog: demoCatalog(),
    port: 0,
    adminToken: TOKEN,
    trustedProxies: ['127.0.0.1'],
    log: (line) => log.push(line),
  });
  const sbkitPort = Number(new URL(await sbkit.listen()).port);
  const port = await freePort();
  const block = (await documentedBlock())
    .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${sbkitPort};`)
    .replace(/^(\s*)listen 443 /m, `$1listen 127.0.0.1:${port} `)
    .replace(/^\s*listen \[::\].*$/m, '')
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${issued.cert};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${issued.key};`);
  const config = join(dir, 'nginx.conf');
  await writeFile(config, `pid ${join(dir, 'nginx.pid')};\nevents {}\nhttp {\n  access_log off;\n${block}\n}\n`);
  nginx = spawn(requireNginx(), ['-p', dir, '-c', config, '-e', 'stderr', '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  nginxUrl = `https://127.0.0.1:${port}`;
  // nginx says nothing once it listens: ask until it answers.
  const deadline = performance.now() + 10_000;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    const up = await new Promise<boolean>((resolve) => {
      const session = http2.connect(nginxUrl, { ca: ca.cert });
      session.once('connect', () => {
        session.destroy();
        resolve(true);
      });
      session.once('error', () => resolve(false));
    });
    if (up) break;
    if (performance.now() > deadline) throw new Error(`nginx did not listen: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

after(async () => {
  if (nginx !== undefined && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx!.once('exit', resolve));
    nginx.kill('SIGQUIT');
    await exited;
  }
  await sbkit?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** A request over HTTP/2 through nginx from `localAddress`: status, body and the ALPN protocol. */
function ask(path: string, headers: http2.OutgoingHttpHeaders = {}, localAddress = '127.0.0.1') {
  return new Promise<{ status: number; body: string; alpn: string | undefined }>((resolve, reject) => {
    const session = http2.connect(nginxUrl, { ca: ca.cert, localAddress } as http2.SecureClientSessionOptions);
    session.on('error', reject);
    const stream = session.request({ ':path': path, ...headers });
    stream.end();
    let status = 0;
    let body = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => {
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ status, body, alpn });
    });
    stream.on('error', reject);
  });
}

describe("docs/operations.md's nginx in front of sbkit serve", { skip: NGINX_SKIP }, () => {
  it('speaks HTTP/2 over TLS to clients and passes a 1000-prefix search through', async () => {
    const health = await ask('/healthz');
    assert.deepEqual(health, { status: 200, body: '{"status":"ok"}', alpn: 'h2' });
    const search = `/v5/hashes:search?${Array.from({ length: 1000 }, () => 'hashPrefixes=v9APjg%3D%3D').join('&')}`;
    assert.ok(search.length > 25_000);
    assert.equal((await ask(search)).status, 200, "large_client_header_buffers: with nginx's default, the connection ends");
  });

  it("hands sbkit the client's address, not a hop the client forged", async () => {
    const answer = await ask('/admin/pause', { ':method': 'POST', 'x-forwarded-for': '203.0.113.9' }, '127.0.0.5');
    assert.equal(answer.status, 401);
    assert.ok(
      log.some((line) => line.startsWith('admin: wrong or missing token from 127.0.0.5 ')),
      log.join('\n'),
    );
  });
});
