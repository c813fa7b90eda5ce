// What a browser is told with every page of `sbkit serve`, and what the public answers give away: the
// pages must not run script, be framed, be sniffed into another type or leak the lookup in a Referer,
// and /status and /status.json must not show where the configuration lies on the disk.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readServerConfig } from '../../src/server/config/config.ts';
import { LoadControl } from '../../src/server/guard/load-control.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { startConfiguredService } from '../server/service-fixture.ts';
import { demoCatalog } from '../server/fixture.ts';

const TOKEN = '7e4b2c9f1a6d08e3b5c7f2a9d4e1b6c0';

/** The CSP's directives by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...values]) => [name!, values]),
  );
}

function assertSafePage(response: Response, body: string, what: string): void {
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/, what);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(response.headers.get('x-frame-options'), 'DENY', what);
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer', what);
  const csp = directives(response.headers.get('content-security-policy') ?? '');
  assert.deepEqual(csp.get('default-src'), ["'none'"], what);
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], what);
  assert.equal(csp.get('script-src'), undefined, `${what}: no script allowed beyond default-src 'none'`);
  for (const values of csp.values()) assert.ok(!values.includes("'unsafe-inline'") && !values.includes("'unsafe-eval'"), what);
  // Every stylesheet in the page is allowed by its hash, and there is nothing else to allow.
  assert.doesNotMatch(body, /<script|\sstyle="|\son[a-z]+=/i, what);
  for (const [, css] of body.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
    const hash = `'sha256-${createHash('sha256').update(css!).digest('base64')}'`;
    assert.ok(csp.get('style-src')?.includes(hash), `${what}: its stylesheet is not in style-src`);
  }
}

describe('security headers on every page', () => {
  let server: SafeBrowsingServer;
  let loadControl: LoadControl;
  let base: string;

  before(async () => {
    loadControl = await LoadControl.create({ settings: { burstMax: 1_000 } });
    server = createServer({ catalog: demoCatalog(), loadControl, adminToken: TOKEN, port: 0 });
    base = await server.listen();
  });
  after(async () => {
    await server.close();
    await loadControl.close();
  });

  for (const path of [
    '/',
    '/?url=http://testsafebrowsing.appspot.com/s/phishing.html',
    '/?url=javascript:alert(1)',
    '/advisory/MALWARE',
    '/advisory/NOPE',
    '/status',
  ]) {
    it(path, async () => {
      const response = await fetch(`${base}${path}`, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' } });
      assertSafePage(response, await response.text(), path);
    });
  }

  it('the page of a paused server', async () => {
    await fetch(`${base}/admin/pause`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    try {
      const response = await fetch(`${base}/`, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' } });
      assert.equal(response.status, 503);
      assertSafePage(response, await response.text(), 'the refusal page');
    } finally {
      await fetch(`${base}/admin/resume`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    }
  });

  it('nosniff and no Referer on the other answers too', async () => {
    for (const path of ['/status.json', '/v5/hashLists', '/no-such-path', '/metrics']) {
      const response = await fetch(`${base}${path}`);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer', path);
    }
  });
});

describe('public answers', () => {
  it('name the configuration file, not where it lies', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-private-layout-'));
    const file = join(dir, 'sbkit.json');
    await writeFile(
      file,
      JSON.stringify({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: ['evil.example/'] }] }] }),
    );
    const service = await startConfiguredService(await readServerConfig(file), {}, file);
    try {
      for (const path of ['/status.json', '/status', '/no-such-path', '/v5/hashLists/nope']) {
        const text = await (await fetch(`${service.url}${path}`)).text();
        assert.ok(!text.includes(dir), `${path} shows ${dir}`);
      }
      const status = (await (await fetch(`${service.url}/status.json`)).json()) as { serving: string };
      assert.equal(status.serving, 'sbkit.json');
    } finally {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
