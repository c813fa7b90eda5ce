import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CheckContext,
  finishChecks,
  localThreatListCheck,
  localThreatListStep,
  localThreatListStepsInBulk,
  MAX_PREFIXES_PER_SEARCH,
  noStorageCheck,
  type PreparedUrl,
  prepareUrl as prepareWith,
  realTimeCheck,
} from '../../src/client/check.ts';
import type { SearchResponse } from '../../src/client/transport/transport.ts';
import { LocalCache } from '../../src/client/local-cache.ts';
import { ListsNotCurrentError, TransportError, UnexpectedError } from '../../src/client/client-errors.ts';
import type { ThreatDetail } from '../../src/lists/threat-details.ts';
import { expressionHashString, nodeExpressionHasher, prefix32 } from '../../src/url/hash.ts';

/** Node's hasher is synchronous: the URL comes back prepared, not as a promise. */
const prepareUrl = (url: string) => prepareWith(url, nodeExpressionHasher) as PreparedUrl;

const BAD_URL = 'http://malware.sbtest.example/';
const badHash = expressionHashString('malware.sbtest.example/');
const malware: ThreatDetail = { threatType: 'MALWARE', attributes: [] };

/** A scripted server: records each search and answers from a table of full hashes. */
function scripted(table: Map<string, ThreatDetail[]>, failure?: Error) {
  const searches: number[][] = [];
  const search = async (prefixes: number[]): Promise<SearchResponse> => {
    searches.push(prefixes);
    if (failure) throw failure;
    const fullHashes = [...table]
      .filter(([hash]) => prefixes.includes(prefix32(hash)))
      .map(([fullHash, details]) => ({ fullHash, details }));
    return { fullHashes, serverFullHashCount: fullHashes.length, cacheDurationMs: 300_000 };
  };
  return { search, searches };
}

/** Local lists from two predicates. */
function localLists(
  inGlobalCache: (hash: string) => boolean,
  inThreatLists: (hash: string, prefix: number) => boolean,
): CheckContext['lists'] {
  return { inGlobalCache, inThreatLists };
}

function context(overrides: Partial<CheckContext> & Pick<CheckContext, 'search'>): CheckContext {
  let clock = 1_000_000;
  return {
    cache: new LocalCache(),
    lists: localLists(
      () => false,
      () => false,
    ),
    now: () => clock++,
    listsProblem: undefined,
    decoyPrefixes: 0,
    random: Math.random,
    ...overrides,
  };
}

describe('realTimeCheck (SB-8)', () => {
  it('is UNSURE without asking anyone when the global cache holds an expression hash', async () => {
    const server = scripted(new Map());
    const ctx = context({
      search: server.search,
      lists: localLists(
        (h) => h === expressionHashString('sbtest.example/'),
        () => false,
      ),
    });
    const outcome = await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSURE');
    assert.equal(server.searches.length, 0);
  });

  it('asks the server about a URL the global cache holds while the threat lists cannot vouch for it', async () => {
    const server = scripted(new Map([[badHash, [malware]]]));
    const ctx = context({
      search: server.search,
      lists: localLists(
        (h) => h === expressionHashString('sbtest.example/'),
        () => false,
      ),
      listsProblem: new ListsNotCurrentError('never-updated', ['se-4b']),
    });
    const outcome = await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSAFE');
    assert.equal(outcome.answeredBy, 'server');
    assert.equal(server.searches.length, 1);
  });

  it('is UNSURE, with the error and nobody answering, when the search fails', async () => {
    const failure = new TransportError('timeout', 'no answer');
    const outcome = await realTimeCheck(context({ search: scripted(new Map(), failure).search }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSURE');
    assert.equal(outcome.answeredBy, undefined);
    assert.equal(outcome.error, failure);
  });

  it('asks the server, reports the threat, and answers the next check from the cache', async () => {
    const server = scripted(new Map([[badHash, [malware]]]));
    const ctx = context({ search: server.search });
    const first = await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(first.verdict, 'UNSAFE');
    assert.equal(first.answeredBy, 'server');
    assert.deepEqual(
      first.threats.map((t) => [t.expression, t.threatType]),
      [['malware.sbtest.example/', 'MALWARE']],
    );
    const second = await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(second.verdict, 'UNSAFE');
    assert.equal(second.answeredBy, 'cache');
    assert.equal(server.searches.length, 1);
  });

  it('caches negative answers for every queried prefix', async () => {
    const server = scripted(new Map());
    const ctx = context({ search: server.search });
    assert.equal((await realTimeCheck(ctx, prepareUrl('http://a.safe.example/x'))).verdict, 'SAFE');
    assert.equal((await realTimeCheck(ctx, prepareUrl('http://a.safe.example/x'))).answeredBy, 'cache');
    assert.equal(server.searches.length, 1);
    assert.equal(server.searches[0]!.length, 4);
  });

  it('asks again once a cache entry has expired', async () => {
    let now = 0;
    const server = scripted(new Map());
    const ctx = context({ search: server.search, now: () => now });
    await realTimeCheck(ctx, prepareUrl(BAD_URL));
    now = 300_000;
    await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(server.searches.length, 1);
    now = 300_001;
    await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(server.searches.length, 2);
  });

  it('is UNSURE on a server error', async () => {
    const ctx = context({ search: scripted(new Map(), new Error('HTTP 503')).search });
    const outcome = await realTimeCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSURE');
    assert.match(outcome.error!.message, /503/);
  });

  it('never sends more than 30 prefixes, and caches no decoys', async () => {
    const server = scripted(new Map());
    const ctx = context({ search: server.search, decoyPrefixes: 100 });
    const url = 'http://a.b.c.d.e.example.com/1/2/3/4/5.html?q';
    await realTimeCheck(ctx, prepareUrl(url));
    const sent = server.searches[0]!;
    assert.equal(sent.length, MAX_PREFIXES_PER_SEARCH);
    assert.equal(new Set(sent).size, sent.length);
    // This URL has 30 expressions of its own: no room for decoys, and every prefix sent is real.
    assert.equal(ctx.cache.size, 30);
    assert.equal((await realTimeCheck(ctx, prepareUrl(url))).answeredBy, 'cache');
  });

  it('adds the requested number of decoys around the real prefixes', async () => {
    const server = scripted(new Map());
    const ctx = context({ search: server.search, decoyPrefixes: 3 });
    await realTimeCheck(ctx, prepareUrl(BAD_URL));
    const real = new Set([prefix32(badHash), prefix32(expressionHashString('sbtest.example/'))]);
    const sent = server.searches[0]!;
    assert.equal(sent.length, real.size + 3);
    for (const prefix of real) assert.ok(sent.includes(prefix));
    assert.equal(ctx.cache.size, real.size);
  });

  it('reports CANARY threats without acting on them; FRAME_ONLY counts only in frames', async () => {
    const canary = scripted(new Map<string, ThreatDetail[]>([[badHash, [{ threatType: 'MALWARE', attributes: ['CANARY'] }]]]));
    const outcome = await realTimeCheck(context({ search: canary.search }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'SAFE');
    assert.equal(outcome.threats[0]?.enforced, false);
    const frameOnly = new Map<string, ThreatDetail[]>([[badHash, [{ threatType: 'SOCIAL_ENGINEERING', attributes: ['FRAME_ONLY'] }]]]);
    assert.equal((await realTimeCheck(context({ search: scripted(frameOnly).search }), prepareUrl(BAD_URL))).verdict, 'SAFE');
    assert.equal(
      (await realTimeCheck(context({ search: scripted(frameOnly).search, inFrame: true }), prepareUrl(BAD_URL))).verdict,
      'UNSAFE',
    );
  });
});

describe('the local cache inside the procedures (SB-8 step 5)', () => {
  it('returns UNSAFE from one cached prefix without asking about the uncached ones', async () => {
    for (const check of [realTimeCheck, localThreatListCheck, noStorageCheck]) {
      const server = scripted(new Map());
      const ctx = context({
        search: server.search,
        lists: localLists(
          () => false,
          () => true,
        ),
      });
      ctx.cache.store(
        [prefix32(badHash)],
        { fullHashes: [{ fullHash: badHash, details: [malware] }], serverFullHashCount: 1, cacheDurationMs: 600_000 },
        ctx.now(),
      );
      const outcome = await check(ctx, prepareUrl(`${BAD_URL}path/page.html`));
      assert.equal(outcome.verdict, 'UNSAFE', check.name);
      assert.equal(outcome.answeredBy, 'cache');
      assert.equal(server.searches.length, 0, `${check.name} asked the server`);
    }
  });

  it('does not send prefixes again that the cache already answered', async () => {
    const server = scripted(new Map());
    const ctx = context({
      search: server.search,
      lists: localLists(
        () => false,
        () => true,
      ),
    });
    const cachedPrefix = prefix32(expressionHashString('sbtest.example/'));
    ctx.cache.store([cachedPrefix], { fullHashes: [], serverFullHashCount: 0, cacheDurationMs: 600_000 }, ctx.now());
    await localThreatListCheck(ctx, prepareUrl(BAD_URL));
    assert.deepEqual(server.searches, [[prefix32(badHash)]]);
  });

  it('gives fewer decoys rather than hanging when the random source repeats itself', async () => {
    const server = scripted(new Map());
    await realTimeCheck(context({ search: server.search, decoyPrefixes: 5, random: () => 0.5 }), prepareUrl(BAD_URL));
    assert.equal(server.searches[0]!.length, 3);
  });
});

describe('localThreatListCheck (SB-8)', () => {
  it('asks nobody when no local list holds a prefix', async () => {
    const server = scripted(new Map([[badHash, [malware]]]));
    const outcome = await localThreatListCheck(context({ search: server.search }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'SAFE');
    assert.equal(outcome.answeredBy, 'database');
    assert.equal(server.searches.length, 0);
  });

  it('sends only the prefixes the lists hold', async () => {
    const server = scripted(new Map([[badHash, [malware]]]));
    const lists = localLists(
      () => false,
      (h) => h === badHash,
    );
    const outcome = await localThreatListCheck(context({ search: server.search, lists }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSAFE');
    assert.deepEqual(server.searches, [[prefix32(badHash)]]);
  });

  it('gives the outcomes of the check one by one when many URLs are looked up by prefix at once', async () => {
    const urls = [
      BAD_URL,
      'http://sbtest.example/a/b',
      'https://ok.example/',
      'http://x.malware.sbtest.example/p?q=1',
      'http://other.example/',
    ];
    const table = new Map([[badHash, [malware]]]);
    const held = new Set([prefix32(badHash), prefix32(expressionHashString('ok.example/'))]);
    // The same URLs through localThreatListStep, each prepared in full, and searched together.
    const oneByOne = context({
      search: scripted(table).search,
      lists: localLists(
        () => false,
        (_, prefix) => held.has(prefix),
      ),
    });
    const alone = await finishChecks(
      oneByOne,
      urls.map((url) => localThreatListStep(oneByOne, prepareUrl(url))),
    );

    let looked = 0;
    const byPrefix = (prefixes: Uint32Array, found: Uint8Array) => {
      looked++;
      prefixes.forEach((prefix, i) => (found[i] = held.has(prefix) ? 1 : 0));
    };
    const server = scripted(table);
    const ctx = context({
      search: server.search,
      lists: localLists(
        () => false,
        (_, prefix) => held.has(prefix),
      ),
    });
    const steps = localThreatListStepsInBulk(ctx, urls, nodeExpressionHasher.hashAllNow!, byPrefix);
    assert.equal(looked, 1);
    assert.deepEqual(await finishChecks(ctx, steps), alone);
    assert.deepEqual(
      alone.map((o) => [o.verdict, o.answeredBy]),
      [
        ['UNSAFE', 'server'],
        ['SAFE', 'database'],
        ['SAFE', 'server'],
        ['UNSAFE', 'server'],
        ['SAFE', 'database'],
      ],
    );
    // Only the URLs with a listed prefix were searched, in one search.
    assert.equal(server.searches.length, 1);
    assert.throws(
      () => localThreatListStepsInBulk(ctx, ['http://a.example/', 'javascript:alert(1)'], nodeExpressionHasher.hashAllNow!, byPrefix),
      /invalid URL/,
    );
  });

  it('answers UNKNOWN in bulk, as one by one, for URLs the lists do not hold while they cannot vouch for them', async () => {
    const held = new Set([prefix32(badHash)]);
    const problem = new ListsNotCurrentError('stale', ['se-4b'], 0);
    const ctx = context({
      search: scripted(new Map([[badHash, [malware]]])).search,
      lists: localLists(
        () => false,
        (_, prefix) => held.has(prefix),
      ),
      listsProblem: problem,
    });
    const byPrefix = (prefixes: Uint32Array, found: Uint8Array) => prefixes.forEach((prefix, i) => (found[i] = held.has(prefix) ? 1 : 0));
    const outcomes = await finishChecks(
      ctx,
      localThreatListStepsInBulk(ctx, [BAD_URL, 'http://ok.example/'], nodeExpressionHasher.hashAllNow!, byPrefix),
    );
    assert.deepEqual(
      outcomes.map((o) => [o.verdict, o.answeredBy, o.error]),
      [
        ['UNSAFE', 'server', undefined],
        ['UNKNOWN', undefined, problem],
      ],
    );
  });

  it('is UNKNOWN on a server error, where SB-8 says SAFE: a listed prefix was not confirmed either way', async () => {
    const lists = localLists(
      () => false,
      () => true,
    );
    const failure = new TransportError('timeout', 'no answer within 10 ms');
    const outcome = await localThreatListCheck(context({ search: scripted(new Map(), failure).search, lists }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNKNOWN');
    assert.equal(outcome.answeredBy, undefined);
    assert.equal(outcome.error, failure);
  });

  it('wraps a failure that is no sbkit error (a stack overflow reading an answer) in UnexpectedError, never SAFE', async () => {
    const lists = localLists(
      () => false,
      () => true,
    );
    const overflow = new RangeError('Maximum call stack size exceeded');
    const outcome = await localThreatListCheck(context({ search: scripted(new Map(), overflow).search, lists }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNKNOWN');
    assert.ok(outcome.error instanceof UnexpectedError);
    assert.equal(outcome.error.code, 'SBKIT_UNEXPECTED');
    assert.equal(outcome.error.cause, overflow);
  });

  for (const problem of [new ListsNotCurrentError('never-updated', ['se-4b']), new ListsNotCurrentError('stale', ['se-4b', 'mw-4b'], 0)]) {
    it(`is UNKNOWN, not SAFE, for a URL the lists do not hold while they are ${problem.reason}`, async () => {
      const server = scripted(new Map());
      const outcome = await localThreatListCheck(context({ search: server.search, listsProblem: problem }), prepareUrl(BAD_URL));
      assert.equal(outcome.verdict, 'UNKNOWN');
      assert.equal(outcome.error, problem);
      assert.equal(server.searches.length, 0);
    });
  }

  it('still confirms a prefix the lists hold with the server while they are out of date', async () => {
    const server = scripted(new Map([[badHash, [malware]]]));
    const lists = localLists(
      () => false,
      (h) => h === badHash,
    );
    const ctx = context({ search: server.search, lists, listsProblem: new ListsNotCurrentError('stale', ['se-4b'], 0) });
    const outcome = await localThreatListCheck(ctx, prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSAFE');
    assert.equal(outcome.answeredBy, 'server');
  });
});

describe('noStorageCheck (SB-8)', () => {
  it('sends every prefix the cache cannot answer', async () => {
    const server = scripted(new Map([[badHash, [malware]]]));
    const outcome = await noStorageCheck(context({ search: server.search }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNSAFE');
    assert.equal(server.searches[0]!.length, 2);
  });

  it('is UNKNOWN on a server error, where SB-8 says SAFE', async () => {
    const failure = new TransportError('network', 'connection refused');
    const outcome = await noStorageCheck(context({ search: scripted(new Map(), failure).search }), prepareUrl(BAD_URL));
    assert.equal(outcome.verdict, 'UNKNOWN');
    assert.equal(outcome.answeredBy, undefined);
    assert.equal(outcome.error, failure);
  });
});
