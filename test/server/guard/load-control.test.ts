import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createApp } from '../../../src/server/http/app.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import type { LoadControlSettings } from '../../../src/server/guard/load-control-settings.ts';
import { demoCatalog } from '../fixture.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';

async function app(settings: Partial<LoadControlSettings> = {}) {
  const clock = new FakeClock();
  const loadControl = await LoadControl.create({ settings, clock });
  const built = createApp({ catalog: demoCatalog(), loadControl, adminToken: 'T' });
  return { app: built, advance: (ms: number) => clock.advance(ms) };
}

describe('load control in front of the server', () => {
  it('answers an API client over its budget with 503, Retry-After and a Google-style error in the encoding it asked for', async () => {
    const { app: a } = await app();
    const headers = { 'user-agent': 'sbkit/0.1.0' };
    for (let i = 0; i < 11; i++) assert.equal((await a.inject({ url: SEARCH, headers })).statusCode, 200);
    const json = await a.inject({ url: `${SEARCH}&alt=json`, headers });
    assert.equal(json.statusCode, 503);
    assert.equal(json.headers['retry-after'], '15');
    assert.deepEqual(json.json(), {
      error: {
        code: 503,
        message: 'too many requests from this client in a short time; try again in 15 s',
        status: 'UNAVAILABLE',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SBKIT_LOAD_CONTROL_RATE', domain: 'sbkit' }],
      },
    });
    const binary = await a.inject({ url: SEARCH, headers });
    assert.equal(binary.statusCode, 503);
    assert.equal(binary.headers['content-type'], 'application/x-protobuf');
    // google.rpc.Status: code 14 (UNAVAILABLE), then the message.
    assert.deepEqual([...binary.rawPayload.subarray(0, 2)], [0x08, 14]);
    assert.match(binary.rawPayload.subarray(4).toString(), /^too many requests from this client/);
  });

  it('shows people a page saying the service is under high load', async () => {
    const { app: a } = await app();
    await a.inject({ method: 'POST', url: '/admin/pause', headers: { authorization: 'Bearer T' } });
    const page = await a.inject({ url: '/', headers: { 'user-agent': FIREFOX } });
    assert.equal(page.statusCode, 503);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /The service is under high load/);
    assert.equal(page.headers['retry-after'], '60');
    assert.equal((await a.inject({ url: '/healthz' })).json<{ status: string }>().status, 'paused', 'health answers while paused');
    assert.equal((await a.inject({ url: '/metrics' })).statusCode, 200, 'and so do metrics');
    assert.equal(
      (await a.inject({ method: 'POST', url: '/admin/resume', headers: { authorization: 'Bearer T' } })).statusCode,
      200,
      'and the operator can resume',
    );
    assert.equal((await a.inject({ url: SEARCH, headers: { 'user-agent': FIREFOX } })).statusCode, 200);
  });

  it('refuses before reading the body', async () => {
    const { app: a } = await app();
    await a.inject({ method: 'POST', url: '/admin/pause', headers: { authorization: 'Bearer T' } });
    const huge = await a.inject({
      method: 'POST',
      url: '/v4/fullHashes:find',
      headers: { 'content-type': 'application/json' },
      payload: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`,
    });
    assert.equal(huge.statusCode, 503, 'not 413: the body was never parsed');
    const underAdmin = await a.inject({
      method: 'POST',
      url: '/admin/other',
      headers: { 'content-type': 'application/json' },
      payload: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`,
    });
    assert.equal(underAdmin.statusCode, 401, 'under /admin/ the token is checked first: without it, refused before the body is read');
  });

  it('lets nothing under /admin pass by when there is no admin token, and so no admin endpoint', async () => {
    const loadControl = await LoadControl.create({ settings: { burstMax: 1 } });
    const noToken = createApp({ catalog: demoCatalog(), loadControl });
    const pause = () => noToken.inject({ method: 'POST', url: '/admin/pause', remoteAddress: '192.0.2.1' });
    assert.deepEqual([(await pause()).statusCode, (await pause()).statusCode, (await pause()).statusCode], [404, 404, 503]);
  });

  it('serves a known crawler once in 30 s, and no two crawlers within 2 s', async () => {
    const { app: a, advance } = await app();
    const crawl = (ua: string, ip: string) => a.inject({ url: '/v5/hashLists', headers: { 'user-agent': ua }, remoteAddress: ip });
    assert.equal((await crawl(GOOGLEBOT, '66.249.66.1')).statusCode, 200);
    advance(1000);
    const bing = await crawl('Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', '40.77.167.1');
    assert.equal(bing.statusCode, 503);
    assert.equal(bing.headers['retry-after'], '2');
    advance(1500);
    assert.equal((await crawl(GOOGLEBOT, '66.249.66.1')).statusCode, 503);
    advance(28_000);
    assert.equal((await crawl(GOOGLEBOT, '66.249.66.1')).statusCode, 200);
    const metrics = (await a.inject({ url: '/metrics' })).body;
    assert.match(metrics, /sbkit_crawler_requests_total\{crawler="Googlebot\\\\\/",outcome="admitted"\} 2/);
    assert.match(metrics, /sbkit_crawler_requests_total\{crawler="Googlebot\\\\\/",outcome="crawler-recent"\} 1/);
    assert.match(metrics, /sbkit_crawler_requests_total\{crawler="bingbot",outcome="crawlers-busy"\} 1/);
  });

  it('believes X-Forwarded-For only from trusted proxies, and groups IPv6 clients by /64', async () => {
    const { app: a } = await app({ trustedProxies: ['10.0.0.0/8'] });
    const ask = (remoteAddress: string, forwardedFor?: string) =>
      a.inject({
        url: SEARCH,
        remoteAddress,
        headers: { 'user-agent': 'api/1', ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
      });
    // Eleven requests of one client through the trusted proxy, each claiming another origin upstream.
    for (let i = 0; i < 11; i++) assert.equal((await ask('10.0.0.5', `198.51.100.${i}, 203.0.113.9`)).statusCode, 200);
    assert.equal((await ask('10.0.0.6', '203.0.113.9')).statusCode, 503, 'the rightmost untrusted hop is the client');
    // A client that is not a proxy cannot pick its identity.
    for (let i = 0; i < 11; i++) assert.equal((await ask('192.0.2.7', `198.51.100.${i}`)).statusCode, 200);
    assert.equal((await ask('192.0.2.7', '198.51.100.200')).statusCode, 503);
    for (let i = 0; i < 11; i++) assert.equal((await ask(`2001:db8:1:2::${i + 1}`)).statusCode, 200);
    assert.equal((await ask('2001:db8:1:2:ffff::1')).statusCode, 503, 'the same /64');
    assert.equal((await ask('2001:db8:1:3::1')).statusCode, 200, 'another /64');
  });

  it('counts admitted and refused requests by class and reason at /metrics, and the load returns to 0', async () => {
    const { app: a } = await app();
    for (let i = 0; i < 12; i++) await a.inject({ url: SEARCH, headers: { 'user-agent': FIREFOX } });
    await a.inject({ url: SEARCH });
    const metrics = (await a.inject({ url: '/metrics', headers: { 'user-agent': 'prometheus/2' } })).body;
    assert.match(metrics, /sbkit_requests_admitted_total\{class="browser"\} 11/);
    assert.match(metrics, /sbkit_requests_refused_total\{class="browser",reason="rate"\} 1/);
    assert.match(metrics, /sbkit_requests_admitted_total\{class="bot"\} 1/, 'no User-Agent is a bot; /metrics itself passes by the gate');
    assert.match(metrics, /sbkit_requests_in_progress 0/);
    assert.match(metrics, /sbkit_load_control_shared 0/);
  });

  it('caps one address however many User-Agents it claims, browsers included (3 × burstMax by default)', async () => {
    const { app: a } = await app();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const agent = i % 2 === 0 ? `${FIREFOX} rotation/${i}` : `api-client/${i}`;
      statuses.push((await a.inject({ url: SEARCH, remoteAddress: '192.0.2.50', headers: { 'user-agent': agent } })).statusCode);
    }
    assert.equal(statuses.filter((status) => status === 200).length, 31, 'the 31st is served, the 32nd is not');
    assert.equal((await a.inject({ url: SEARCH, remoteAddress: '192.0.2.51', headers: { 'user-agent': FIREFOX } })).statusCode, 200);
    const refused = await a.inject({ url: `${SEARCH}&alt=json`, remoteAddress: '192.0.2.50', headers: { 'user-agent': 'new/1' } });
    assert.match(refused.json<{ error: { message: string } }>().error.message, /from this network address/);
  });

  it('budgets a valid API key by the key, wherever its requests come from, and an unknown key as nobody', async () => {
    const clock = new FakeClock();
    const loadControl = await LoadControl.create({ settings: { keyBudgets: { 'key-of-a-proxy': 40 } }, clock });
    const a = createApp({ catalog: demoCatalog(), loadControl, apiKeys: ['key-of-a-proxy', 'key-of-an-app'] });
    const ask = (key: string, address: string) =>
      a.inject({ url: `${SEARCH}&key=${key}`, remoteAddress: address, headers: { 'user-agent': 'api/1' } });
    const served = async (key: string, addresses: (i: number) => string, count: number) => {
      let ok = 0;
      for (let i = 0; i < count; i++) if ((await ask(key, addresses(i))).statusCode === 200) ok++;
      return ok;
    };
    assert.equal(await served('key-of-a-proxy', () => '192.0.2.60', 50), 41, "the key's own budget, past the address cap");
    assert.equal(await served('key-of-an-app', (i) => `198.51.100.${i}`, 120), 101, 'keyBurstMax (10 × burstMax), from any address');
    const madeUp: number[] = [];
    for (let i = 0; i < 35; i++) {
      const reply = await a.inject({
        url: `${SEARCH}&key=made-up-${i}`,
        remoteAddress: '203.0.113.1',
        headers: { 'user-agent': `api/${i}` },
      });
      madeUp.push(reply.statusCode);
    }
    assert.deepEqual(madeUp, [...Array<number>(31).fill(400), ...Array<number>(4).fill(503)], 'made-up keys count as the address');
    clock.advance(15_000);
    assert.equal((await ask('key-of-a-proxy', '192.0.2.61')).statusCode, 200, 'the window moved on');
  });

  it('never lets one address past the cap, whatever it claims and whenever it asks (property)', async () => {
    const step = fc.record({ agent: fc.integer({ min: 0, max: 50 }), browser: fc.boolean(), gap: fc.integer({ min: 0, max: 3000 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 80 }), async (steps) => {
        const { app: a, advance } = await app({ burstMax: 3, addressBurstMax: 5, burstWindowMs: 10_000 });
        let t = 0;
        const admitted: number[] = [];
        for (const { agent, browser, gap } of steps) {
          t += gap;
          advance(gap);
          const userAgent = browser ? `${FIREFOX} n/${agent}` : `tool/${agent}`;
          const reply = await a.inject({ url: SEARCH, remoteAddress: '2001:db8:7:7::1', headers: { 'user-agent': userAgent } });
          if (reply.statusCode === 200) admitted.push(t);
        }
        // At most addressBurstMax + 1 admissions within any 10 s window.
        for (let i = 0; i < admitted.length; i++) {
          const inWindow = admitted.filter((u) => u >= admitted[i]! && u < admitted[i]! + 10_000).length;
          assert.ok(inWindow <= 6, `${inWindow} admitted within 10 s from ${admitted[i]}`);
        }
      }),
      { numRuns: 60 },
    );
  });
});
