import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp } from '../../../src/server/http/app.ts';
import { corsOriginProblem } from '../../../src/server/api/cors.ts';
import { parseServerConfig } from '../../../src/server/config/config.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { demoCatalog } from '../fixture.ts';

const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';
const LIST = '/v5/hashList/se-4b';
const MAIL = 'https://mail.example';
const EXTENSION = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';
const PREFLIGHT = { 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-goog-api-key' };

async function app(corsOrigins?: string[], burstMax = 1) {
  const loadControl = await LoadControl.create({ settings: { burstMax } });
  return createApp({ catalog: demoCatalog(), loadControl, ...(corsOrigins === undefined ? {} : { corsOrigins }) });
}

describe('CORS on the API', () => {
  it('is off unless origins are named: no Access-Control header for anyone', async () => {
    const a = await app();
    const reply = await a.inject({ url: SEARCH, headers: { origin: MAIL } });
    assert.equal(reply.statusCode, 200);
    assert.equal(reply.headers['access-control-allow-origin'], undefined);
  });

  it('answers a named origin, and its preflight without spending its load-control budget', async () => {
    const a = await app([MAIL, EXTENSION]);
    for (let i = 0; i < 5; i++) {
      const preflight = await a.inject({ method: 'OPTIONS', url: SEARCH, headers: { origin: MAIL, ...PREFLIGHT } });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], MAIL);
      assert.equal(preflight.headers['access-control-allow-methods'], 'GET, POST');
      assert.match(String(preflight.headers['access-control-allow-headers']), /x-goog-api-key/);
    }
    // burstMax 1: two requests are allowed, so five preflights counted would have refused these.
    for (const origin of [MAIL, EXTENSION]) {
      const reply = await a.inject({ url: SEARCH, headers: { origin, 'user-agent': `script/${origin}` } });
      assert.equal(reply.statusCode, 200);
      assert.equal(reply.headers['access-control-allow-origin'], origin);
      assert.match(String(reply.headers['access-control-expose-headers']), /retry-after/);
      assert.match(String(reply.headers.vary), /Origin/);
    }
  });

  it('refuses the preflight of another origin and gives its requests no Access-Control header', async () => {
    const a = await app([MAIL]);
    const preflight = await a.inject({ method: 'OPTIONS', url: SEARCH, headers: { origin: 'https://evil.example', ...PREFLIGHT } });
    assert.equal(preflight.statusCode, 403);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const reply = await a.inject({ url: SEARCH, headers: { origin: 'https://evil.example' } });
    assert.equal(reply.headers['access-control-allow-origin'], undefined);
    const page = await a.inject({ url: '/', headers: { origin: MAIL } });
    assert.equal(page.headers['access-control-allow-origin'], undefined, 'pages are not for scripts of other origins');
  });

  it('says Vary: Origin on every API answer, to requests without an Origin too, so that shared caches keep them apart', async () => {
    const varies = (reply: { headers: Record<string, unknown> }) => String(reply.headers.vary).split(/,\s*/).includes('Origin');
    for (const origin of [MAIL, '*']) {
      const a = await app([origin], 2);
      // A public list answer asked without an Origin: an edge cache keeps it, and must not give it to a script.
      const list = await a.inject({ url: LIST, headers: { 'user-agent': 'list-fetcher' } });
      assert.equal(list.statusCode, 200);
      assert.match(String(list.headers['cache-control']), /^public/);
      assert.equal(list.headers['access-control-allow-origin'], undefined);
      assert.ok(varies(list), `200 of a list, ${origin}: ${list.headers.vary}`);
      const revalidated = await a.inject({
        url: LIST,
        headers: { 'user-agent': 'list-fetcher', 'if-none-match': String(list.headers.etag) },
      });
      assert.equal(revalidated.statusCode, 304);
      assert.ok(varies(revalidated), `304, ${origin}: ${revalidated.headers.vary}`);
      const search = await a.inject({ url: SEARCH, headers: { 'user-agent': 'searcher' } });
      assert.equal(search.statusCode, 200);
      assert.ok(varies(search), `200 of a search, ${origin}`);
      const bad = await a.inject({ url: '/v5/hashes:search?hashPrefixes=!', headers: { 'user-agent': 'searcher' } });
      assert.equal(bad.statusCode, 400);
      assert.ok(varies(bad), `400, ${origin}: ${bad.headers.vary}`);
      // burstMax 2: load control refuses one client's searches after its first few.
      let refused = search;
      for (let i = 0; i < 5 && refused.statusCode !== 503; i++)
        refused = await a.inject({ url: SEARCH, headers: { 'user-agent': 'searcher' } });
      assert.equal(refused.statusCode, 503);
      assert.ok(varies(refused), `503, ${origin}: ${refused.headers.vary}`);
      const page = await a.inject({ url: '/' });
      assert.ok(!varies(page), 'pages are no API answers');
    }
    const off = await app(undefined, 2);
    const list = await off.inject({ url: LIST });
    assert.equal(list.statusCode, 200);
    assert.equal(
      list.headers.vary,
      'Accept, Content-Type, X-Goog-Api-Client, X-Goog-Api-Key, X-HTTP-Method-Override',
      'CORS off: as before',
    );
    const bad = await off.inject({ url: '/v5/hashes:search?hashPrefixes=!' });
    assert.equal(bad.headers.vary, undefined, 'CORS off: errors vary on nothing');
  });

  it('allows any origin with "*"', async () => {
    const a = await app(['*']);
    const reply = await a.inject({ url: SEARCH, headers: { origin: 'https://anyone.example' } });
    assert.equal(reply.headers['access-control-allow-origin'], '*');
  });

  it('takes web and extension origins and "*", and refuses what is no origin, in the configuration too', () => {
    for (const origin of [
      '*',
      MAIL,
      'http://127.0.0.1:8080',
      'https://[::1]:8443',
      EXTENSION,
      'moz-extension://0b0f7b1c-6a3e-4e8c-9a7e-1d2f3a4b5c6d',
    ]) {
      assert.equal(corsOriginProblem(origin), undefined, origin);
    }
    for (const origin of [
      'https://mail.example/',
      'https://Mail.example',
      'mail.example',
      'https://mail.example/path',
      'javascript:alert(1)',
      '',
    ]) {
      assert.match(corsOriginProblem(origin) ?? '', /is no origin/, origin);
    }
    assert.deepEqual(parseServerConfig({ cors: { origins: [MAIL] } }, '/etc/sbkit').corsOrigins, [MAIL]);
    assert.throws(
      () => parseServerConfig({ cors: { origins: ['https://mail.example/'] } }, '/etc/sbkit'),
      /cors\.origins\[0\]: .* is no origin/,
    );
    assert.throws(() => parseServerConfig({ cors: { allow: [] } }, '/etc/sbkit'), /cors\.allow: is not a known setting/);
  });
});
