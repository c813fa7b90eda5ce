import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp } from '../../../src/server/http/app.ts';
import type { FullHashSource } from '../../../src/server/api/full-hash-source.ts';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { WireError } from '../../../src/wire/wire-error.ts';
import { demoCatalog } from '../fixture.ts';

const PHISHING = 'http://testsafebrowsing.appspot.com/s/phishing.html';
const lookup = (url: string) => `/?url=${encodeURIComponent(url)}`;

describe('the lookup page', () => {
  it('shows a listed URL as suspected, with its threat, the expression that matched and the advisory link', async () => {
    const page = await createApp({ catalog: demoCatalog() }).inject({ url: lookup(PHISHING) });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /is suspected to be unsafe/);
    assert.match(page.body, /Suspected phishing \(social engineering\)<\/strong> \(<a href="\/advisory\/SOCIAL_ENGINEERING">/);
    assert.match(page.body, /listed as <code>testsafebrowsing\.appspot\.com\/s\/phishing\.html<\/code>/);
    assert.doesNotMatch(page.body, /Advisory provided by/, "the demo lists are not Google's data (SB-3)");
    assert.match(page.body, /false positives.*false negatives/);
  });

  it("attributes verdicts to Google only when they come from Google's data", async () => {
    const page = await createApp({ catalog: demoCatalog(), googleData: true }).inject({ url: lookup(PHISHING) });
    assert.match(page.body, /Advisory provided by <a href="https:\/\/developers\.google\.com\/safe-browsing\/v4\/advisory">Google<\/a>/);
    const safe = await createApp({ catalog: demoCatalog(), googleData: true }).inject({ url: lookup('http://example.com/') });
    assert.doesNotMatch(safe.body, /Advisory provided by/);
  });

  it('says a URL that is not listed is not thereby proven safe', async () => {
    const page = await createApp({ catalog: demoCatalog() }).inject({ url: lookup('http://example.com/') });
    assert.match(page.body, /<strong>Not listed:<\/strong> <code>http:\/\/example\.com\/<\/code>.*That does not prove it is safe/);
  });

  it('explains input that is no URL, escapes what it shows, and refuses absurd lengths', async () => {
    const app = createApp({ catalog: demoCatalog() });
    const bad = await app.inject({ url: lookup('ftp://files.example/<script>alert(1)</script>') });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /This is not a URL that can be checked/);
    assert.doesNotMatch(bad.body, /<script>alert/);
    const shown = await app.inject({ url: lookup('http://a.example/"><script>alert(1)</script>') });
    assert.equal(shown.statusCode, 200);
    assert.doesNotMatch(shown.body, /<script>alert/);
    assert.match(shown.body, /value="http:\/\/a\.example\/&#34;&#62;&#60;script&#62;/);
    assert.equal((await app.inject({ url: lookup(`http://a.example/${'x'.repeat(9000)}`) })).statusCode, 400);
  });

  it("says when the lists' source cannot answer, and when to come back", async () => {
    const down: FullHashSource = { find: async () => Promise.reject(new WireError('UNAVAILABLE', 'upstream away')) };
    const page = await createApp({ catalog: demoCatalog(), fullHashes: down }).inject({ url: lookup(PHISHING) });
    assert.equal(page.statusCode, 503);
    assert.equal(page.headers['retry-after'], '60');
    const waiting: FullHashSource = {
      find: async () => Promise.reject(new WireError('UNAVAILABLE', 'over its share', { retryAfterSeconds: 7 })),
    };
    const told = await createApp({ catalog: demoCatalog(), fullHashes: waiting }).inject({ url: lookup(PHISHING) });
    assert.equal(told.headers['retry-after'], '7', "the source's own wait");
    assert.match(
      page.body,
      /<section class="verdict unknown" id="verdict"><p><strong>Unknown:<\/strong> <code>[^<]*phishing\.html<\/code> could not be checked just now \(the lists&#39; source did not answer: upstream away\), so nothing is known of it either way\. Please try again in 60 seconds/,
    );
    assert.doesNotMatch(page.body, /Not listed/);
    assert.match(told.body, /try again in 7 seconds/);
  });

  it('serves an advisory per threat type, and none for made-up types', async () => {
    const app = createApp({ catalog: demoCatalog() });
    assert.match((await app.inject({ url: '/advisory/MALWARE' })).body, /Suspected malware/);
    assert.equal((await app.inject({ url: '/advisory/NONSENSE' })).statusCode, 404);
  });

  it("name an empty icon, so that browsers spend none of a person's request budget on /favicon.ico", async () => {
    const app = createApp({ catalog: demoCatalog() });
    for (const url of ['/', '/?url=example.com', '/status', '/advisory/MALWARE']) {
      assert.match((await app.inject({ url })).body, /<link rel="icon" href="data:,">/, url);
    }
  });
});

describe('who may keep a page', () => {
  it('caches may keep the form and the advisories; no cache keeps a lookup, an error or the status', async () => {
    const app = createApp({ catalog: demoCatalog() });
    const cacheControl = async (url: string) => (await app.inject({ url })).headers['cache-control'];
    assert.equal(await cacheControl('/'), 'public, max-age=300');
    assert.equal(await cacheControl('/advisory/MALWARE'), 'public, max-age=86400');
    // A lookup tells what someone checks: kept nowhere, whatever its outcome.
    assert.equal(await cacheControl(lookup(PHISHING)), 'no-store');
    assert.equal(await cacheControl(lookup('ftp://files.example/')), 'no-store');
    assert.equal(await cacheControl(`/?url=${'x'.repeat(9000)}`), 'no-store');
    assert.equal(await cacheControl('/advisory/NONSENSE'), 'no-store');
    assert.equal(await cacheControl('/status'), 'no-store');
    assert.equal(await cacheControl('/status.json'), 'no-store');
  });
});

describe('the status page', () => {
  it('lists every list with version, entries and age, and counts requests and refusals', async (t) => {
    const loadControl = await LoadControl.create();
    const app = createApp({ catalog: demoCatalog(), loadControl, serving: 'the embedded demo lists' });
    // Over HTTP: answers are counted as Node's server ends them (inject's never pass there).
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    t.after(() => app.close());
    for (let i = 0; i < 12; i++) await (await fetch(`${base}/v5/hashLists`, { headers: { 'user-agent': 'script/1' } })).arrayBuffer();
    const json = (await (await fetch(`${base}/status.json`, { headers: { 'user-agent': 'monitor/1' } })).json()) as {
      serving: string;
      lists: { name: string; entries: number; version: string; ageSeconds: number }[];
      requests: { answered: number; refused: number; perMinute: unknown[] };
      loadControl: { refused: Record<string, number>; admitted: Record<string, number> };
    };
    assert.equal(json.serving, 'the embedded demo lists');
    const se = json.lists.find((l) => l.name === 'se-4b')!;
    assert.ok(se.entries > 0 && /^[0-9a-f]{32}$/.test(se.version) && se.ageSeconds >= 0);
    assert.equal(json.requests.answered, 11);
    assert.equal(json.requests.refused, 1);
    assert.equal(json.requests.perMinute.length, 60);
    assert.deepEqual(json.loadControl.refused, { 'bot/rate': 1 });
    const page = await app.inject({
      url: '/status',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0' },
    });
    assert.match(page.body, /<table id="lists">/);
    assert.match(page.body, /<code>se-4b<\/code>/);
    assert.match(page.body, /<svg id="chart"/);
    assert.match(page.body, /<tr><td>bot<\/td><td class="n">12<\/td><td>rate: 1<\/td><\/tr>/);
    await loadControl.close();
  });
});
