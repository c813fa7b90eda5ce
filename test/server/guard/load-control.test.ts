import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp } from '../../../src/server/app.ts';
import { LoadControl, type LoadControlSettings } from '../../../src/server/guard/load-control.ts';
import { demoCatalog } from '../fixture.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SEARCH = '/v5/hashes:search?hashPrefixes=WwuJdQ';

async function app(settings: Partial<LoadControlSettings> = {}) {
  let now = 0;
  const loadControl = await LoadControl.create({ settings, now: () => now });
  const built = createApp({ catalog: demoCatalog(), loadControl, adminToken: 'T' });
  return { app: built, advance: (ms: number) => (now += ms) };
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
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SBKIT_WIRE_UNAVAILABLE', domain: 'sbkit' }],
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
    assert.equal(underAdmin.statusCode, 503, 'only the admin endpoints themselves pass by the gate');
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
});
