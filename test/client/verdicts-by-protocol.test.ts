// The client's verdicts, the same cases over every protocol that keeps lists the same way: v5 and Web
// Risk (v4 has its own, safe-browsing-client-v4.test.ts). Each protocol's fake server answers from one
// description of what is listed (which list holds which expressions, which full hashes are threats), so
// a case says what the server knows and the verdicts it expects, whatever the wire between.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { BatchGetHashListsResponseSchema, SearchHashesResponseSchema } from '../../src/proto/v5.ts';
import type { SafeBrowsingClientOptions } from '../../src/client/options.ts';
import { type CheckResult, SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { urlExpressions } from '../../src/url/expressions.ts';
import { expressionHashString } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { diffAnswer, type FakeWebRisk, searchAnswer as webRiskSearchAnswer, startFakeWebRisk } from './fake-web-risk.ts';
import { fullHashesOf, fullHashList, prefixList, prefixesOf } from './lists-fixture.ts';

const MIN = 60_000;
const BAD = 'malware.sbtest.example/';
const BAD_URL = `http://${BAD}`;

/** What the server knows: the expressions each list holds, the threats among them, and whether it fails. */
interface Listing {
  /** Expressions of se-4b (SOCIAL_ENGINEERING) and mw-4b (MALWARE). */
  se: string[];
  mw: string[];
  /** Expressions whose full hashes a search reports, with the threat type of their list; CANARY ones too (v5 only has attributes). */
  threats: string[];
  canaries: string[];
  /** v5's global cache. */
  popular: string[];
  /** Every request fails with this status. */
  failWith?: number;
  /** Searches fail with this status. */
  searchFailsWith?: number;
}

const nothing = (): Listing => ({ se: [], mw: [], threats: [], canaries: [], popular: [] });

/** One protocol's fake server over a listing, and how its clients are made. */
interface ProtocolServer {
  protocol: 'v5' | 'webrisk';
  modes: readonly ('realtime' | 'local' | 'nostorage')[];
  listing: Listing;
  url(): string;
  /** Search requests: v5's carry many prefixes, Web Risk's one. */
  searches(): number;
  requests(): number;
  scriptErrors(): unknown[];
  reset(): void;
  close(): Promise<void>;
}

const threatTypeOf = (listing: Listing, expression: string) => (listing.se.includes(expression) ? 2 : 1);

async function v5Server(): Promise<ProtocolServer> {
  let server: FakeServer;
  const self: ProtocolServer = {
    protocol: 'v5',
    modes: ['realtime', 'local', 'nostorage'],
    listing: nothing(),
    url: () => server.url,
    searches: () => server.requests.filter((r) => r.rpc === 'SearchHashes').length,
    requests: () => server.requests.length,
    scriptErrors: () => server.scriptErrors.splice(0),
    reset: () => (server.requests.length = 0),
    close: () => server.close(),
  };
  server = await startFakeServer((call) => {
    const { listing } = self;
    if (listing.failWith !== undefined) return { status: listing.failWith };
    if (call.rpc === 'BatchGetHashLists') {
      const hashLists = call.request.names.map((name) =>
        name === 'gc-32b'
          ? fullHashList(name, 'g1', fullHashesOf(...listing.popular))
          : prefixList(name, 'v1', prefixesOf(...(name === 'se-4b' ? listing.se : listing.mw)), { minimumWaitMs: 30 * MIN }),
      );
      return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists }) };
    }
    assert.equal(call.rpc, 'SearchHashes');
    if (listing.searchFailsWith !== undefined) return { status: listing.searchFailsWith };
    const asked = new Set(call.request.hashPrefixes.map((p) => Buffer.from(p).toString('latin1')));
    const fullHashes = listing.threats
      .filter((e) => asked.has(expressionHashString(e).slice(0, 4)))
      .map((e) => ({
        fullHash: Buffer.from(expressionHashString(e), 'latin1'),
        fullHashDetails: [{ threatType: threatTypeOf(listing, e), attributes: listing.canaries.includes(e) ? [1] : [] }],
      }));
    return { rpc: 'SearchHashes', message: create(SearchHashesResponseSchema, { fullHashes, cacheDuration: durationFromMs(5 * MIN) }) };
  });
  return self;
}

async function webRiskServer(clock: FakeClock): Promise<ProtocolServer> {
  let server: FakeWebRisk;
  const self: ProtocolServer = {
    protocol: 'webrisk',
    modes: ['local', 'nostorage'],
    listing: nothing(),
    url: () => server.url,
    searches: () => server.calls.filter((c) => c.method === 'search').length,
    requests: () => server.calls.length,
    scriptErrors: () => server.scriptErrors.splice(0),
    reset: () => (server.calls.length = 0),
    close: () => server.close(),
  };
  server = await startFakeWebRisk((call) => {
    const { listing } = self;
    if (listing.failWith !== undefined) return { status: listing.failWith };
    if (call.method === 'computeDiff') {
      const expressions = call.threatType === 2 ? listing.se : call.threatType === 1 ? listing.mw : [];
      return diffAnswer('v1', prefixesOf(...expressions), { nextDiffAt: clock.now() + 30 * MIN });
    }
    if (listing.searchFailsWith !== undefined) return { status: listing.searchFailsWith };
    const asked = call.hashPrefix.toString('latin1');
    // Web Risk has no attributes: a canary is left unlisted, as Web Risk would not report it.
    const threats = listing.threats
      .filter((e) => !listing.canaries.includes(e) && expressionHashString(e).startsWith(asked))
      .map((e) => ({ hash: expressionHashString(e), threatTypes: [threatTypeOf(listing, e)] }));
    return webRiskSearchAnswer(threats, clock.now() + 5 * MIN);
  });
  return self;
}

const clock = new FakeClock();
const servers: ProtocolServer[] = [];

before(async () => {
  servers.push(await v5Server(), await webRiskServer(clock));
});
after(async () => {
  for (const server of servers) await server.close();
});
afterEach(() => {
  for (const server of servers) {
    assert.deepEqual(server.scriptErrors(), [], `the ${server.protocol} server's script failed`);
    server.reset();
    server.listing = nothing();
  }
});

for (const protocol of ['v5', 'webrisk'] as const) {
  const server = () => servers.find((s) => s.protocol === protocol)!;
  const client = (options: SafeBrowsingClientOptions) =>
    new SafeBrowsingClient({ server: server().url(), apiKey: 'test-key', protocol, clock, lists: ['se-4b', 'mw-4b'], ...options });

  describe(`verdicts over ${protocol}`, () => {
    it('local mode: downloads the lists, answers unlisted URLs from them, and confirms a listed one with the server', async () => {
      server().listing = { ...nothing(), mw: [BAD], threats: [BAD] };
      const sb = client({ mode: 'local' });
      assert.deepEqual((await sb.update()).updated, ['se-4b', 'mw-4b']);
      const safe = await sb.checkUrl('http://safe.example/');
      assert.deepEqual([safe.verdict, safe.answeredBy], ['SAFE', 'database']);
      const bad = await sb.checkUrl(BAD_URL);
      assert.equal(bad.verdict, 'UNSAFE');
      assert.deepEqual(
        bad.threats.map((t) => t.threatType),
        ['MALWARE'],
      );
      assert.equal(server().searches(), 1);
      await sb.close();
    });

    it('local mode: a URL is never SAFE while the lists could not be downloaded', async () => {
      server().listing = { ...nothing(), failWith: 503 };
      const sb = client({ mode: 'local' });
      assert.notEqual((await sb.update()).error, undefined);
      const result = await sb.checkUrl('http://safe.example/');
      assert.equal(result.verdict, 'UNKNOWN');
      assert.equal(result.error?.code, 'SBKIT_LISTS_NOT_CURRENT_NEVER_UPDATED');
    });

    it('no-storage mode: keeps no lists, asks the server, and answers again from the memory cache', async () => {
      server().listing = { ...nothing(), se: [BAD], threats: [BAD] };
      const sb = client({ mode: 'nostorage' });
      assert.deepEqual(sb.listInfo(), []);
      assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'server');
      assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'cache');
      const bad = await sb.checkUrl(BAD_URL);
      assert.deepEqual([bad.verdict, bad.threats.map((t) => t.threatType)], ['UNSAFE', ['SOCIAL_ENGINEERING']]);
      // The answers hold for five minutes, then the server is asked again.
      clock.advance(5 * MIN + 1);
      assert.equal((await sb.checkUrl('http://a.example/x')).answeredBy, 'server');
    });

    it('no-storage mode: answers UNKNOWN with the error, never SAFE, when the server fails or cannot be reached', async () => {
      server().listing = { ...nothing(), failWith: 502 };
      const failed = await client({ mode: 'nostorage' }).checkUrl(BAD_URL);
      assert.equal(failed.verdict, 'UNKNOWN');
      assert.match(failed.error.message, /502/);
      const unreachable = await new SafeBrowsingClient({ server: 'http://127.0.0.1:9', protocol, mode: 'nostorage', clock }).checkUrl(
        BAD_URL,
      );
      assert.equal(unreachable.verdict, 'UNKNOWN');
      assert.equal(unreachable.error?.code, 'SBKIT_TRANSPORT_NETWORK');
    });

    it('gives every URL the verdict checkUrl gives it, in every mode, with no more searches', async () => {
      const hosts = ['a.example', 'b.a.example', 'c.example', 'sbtest.example', 'x.c.example'];
      const paths = ['/', '/p', '/p/q.html', '/q?x=1'];
      const pool = [...new Set(hosts.flatMap((h) => paths.flatMap((p) => urlExpressions(`http://${h}${p}`))))];
      const url = fc.tuple(fc.constantFrom(...hosts), fc.constantFrom(...paths)).map(([h, p]) => `http://${h}${p}`);
      await fc.assert(
        fc.asyncProperty(
          fc.array(url, { minLength: 1, maxLength: 12 }),
          fc.subarray(pool),
          fc.subarray(pool),
          fc.subarray(pool),
          fc.subarray(pool),
          fc.constantFrom(...server().modes),
          fc.boolean(),
          async (urls, threats, canaries, listedOnly, popular, mode, failing) => {
            server().listing = {
              ...nothing(),
              se: [...threats, ...listedOnly],
              threats,
              canaries,
              popular,
              ...(failing ? { searchFailsWith: 503 } : {}),
            };
            const single = client({ mode, random: () => 0.5 });
            const batched = client({ mode, random: () => 0.5 });
            if (mode !== 'nostorage') await Promise.all([single.update(), batched.update()]);
            const start = server().searches();
            const one: CheckResult[] = [];
            for (const u of urls) one.push(await single.checkUrl(u));
            const between = server().searches();
            const many = await batched.checkUrls(urls);
            const verdicts = (results: CheckResult[]) => results.map((r) => [r.url, r.canonicalUrl, r.verdict]);
            assert.deepEqual(verdicts(many), verdicts(one));
            // A URL the cache already shows unsafe stops there, with the threats found so far: which ones
            // depends on what was asked before, so each list need only hold true threats of its URL.
            for (const result of [...one, ...many]) {
              const expressions = urlExpressions(result.url);
              for (const threat of result.threats) {
                assert.ok(
                  threats.includes(threat.expression) && expressions.includes(threat.expression),
                  `${result.url}: ${threat.expression} is no threat of it`,
                );
                assert.equal(threat.enforced, !canaries.includes(threat.expression));
              }
              assert.equal(
                result.verdict === 'UNSAFE',
                result.threats.some((t) => t.enforced),
              );
            }
            // Searches, not requests: Web Risk asks one prefix a request, and a bulk check may ask about a
            // prefix that checks one by one never needed (their URL already shown unsafe from the cache).
            if (protocol === 'v5')
              assert.ok(
                server().searches() - between <= between - start,
                `${server().searches() - between} searches for ${between - start} one by one`,
              );
            await Promise.all([single.close(), batched.close()]);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
