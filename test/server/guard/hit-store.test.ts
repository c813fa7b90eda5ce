import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LC_RATE_RULES, MemoryHitStore, type RateVerdict } from '../../../src/server/guard/hit-store.ts';

/** A store on a clock the test moves. */
function store(maxClients = 1000) {
  let now = 1_000_000;
  const hits = new MemoryHitStore(LC_RATE_RULES, maxClients, () => now);
  return { hits, at: (t: number) => (now = 1_000_000 + t) };
}

describe('MemoryHitStore: LC-1/LC-3 hit stack (more than 10 in the previous 15 s)', () => {
  it('serves the 11th request of 15 s and refuses the 12th', () => {
    const { hits, at } = store();
    const verdicts: RateVerdict[] = [];
    for (let i = 0; i < 12; i++) {
      at(i * 100);
      verdicts.push(hits.hitNow('client', false));
    }
    assert.deepEqual(verdicts, [...Array<RateVerdict>(11).fill('admit'), 'rate']);
  });

  it('counts the previous 15 s: 14.999 s after the first of 11 requests is too soon, 15 s is not', () => {
    for (const [t, expected] of [
      [14_999, 'rate'],
      [15_000, 'admit'],
    ] as const) {
      const { hits, at } = store();
      for (let i = 0; i < 11; i++) {
        at(i);
        hits.hitNow('client', false);
      }
      // The first arrival was at 0; 11 arrivals are on the stack.
      at(t);
      assert.equal(hits.hitNow('client', false), expected, `at ${t} ms`);
    }
  });

  it('counts refused requests too, so a client that keeps hammering stays out, and clients apart', () => {
    const { hits, at } = store();
    for (let i = 0; i < 40; i++) {
      at(i * 1000);
      hits.hitNow('hammer', false);
    }
    at(40_000);
    assert.equal(hits.hitNow('hammer', false), 'rate', 'a request a second is more than 10 in 15 s');
    assert.equal(hits.hitNow('other', false), 'admit');
  });
});

describe('MemoryHitStore: LC-2 crawlers', () => {
  it('refuses a crawler admitted in the previous 30 s, and any crawler within 2 s of another', () => {
    const { hits, at } = store();
    at(0);
    assert.equal(hits.hitNow('googlebot', true), 'admit');
    at(1_999);
    assert.equal(hits.hitNow('bingbot', true), 'crawlers-busy');
    at(2_000);
    assert.equal(hits.hitNow('bingbot', true), 'admit');
    at(29_999);
    assert.equal(hits.hitNow('googlebot', true), 'crawler-recent');
    at(30_000);
    assert.equal(hits.hitNow('googlebot', true), 'admit');
  });

  it('records nothing for a crawler it refuses, and lets non-crawlers through meanwhile', () => {
    const { hits, at } = store();
    at(0);
    hits.hitNow('googlebot', true);
    at(20_000);
    assert.equal(hits.hitNow('googlebot', true), 'crawler-recent');
    at(30_000);
    assert.equal(hits.hitNow('googlebot', true), 'admit', 'the refusal at 20 s did not count as a hit');
    assert.equal(hits.hitNow('api-client', false), 'admit');
  });
});

/** The rules written out over every arrival ever seen: what the store must answer. */
function model(events: { client: number; crawler: boolean; t: number }[]): RateVerdict[] {
  const arrivals = new Map<number, number[]>();
  const crawlerAdmitted = new Map<number, number>();
  let anyCrawler: number | undefined;
  return events.map(({ client, crawler, t }) => {
    if (crawler) {
      const own = crawlerAdmitted.get(client);
      if (own !== undefined && t - own < 30_000) return 'crawler-recent';
      if (anyCrawler !== undefined && t - anyCrawler < 2_000) return 'crawlers-busy';
    }
    const earlier = arrivals.get(client) ?? [];
    const recent = earlier.filter((a) => t - a < 15_000).length;
    arrivals.set(client, [...earlier, t]);
    if (recent > 10) return 'rate';
    if (crawler) {
      crawlerAdmitted.set(client, t);
      anyCrawler = t;
    }
    return 'admit';
  });
}

describe("MemoryHitStore: budgets beside the client's own", () => {
  it("refuses with the first exhausted budget's verdict and records the request in every budget", () => {
    const { hits, at } = store();
    at(0);
    const budgets = (client: string) => [
      { key: client, max: 10, refusal: 'rate' as const },
      { key: 'address:192.0.2.1', max: 2, refusal: 'address-rate' as const },
    ];
    const verdicts = ['a', 'b', 'c', 'd'].map((client) => hits.hitNow(client, false, budgets(client)));
    assert.deepEqual(verdicts, ['admit', 'admit', 'admit', 'address-rate'], 'three of the address, whatever the clients');
    assert.equal(hits.hitNow('e', false, [{ key: 'e', max: 10, refusal: 'rate' }]), 'admit', 'a client outside the address is apart');
    at(15_000);
    assert.equal(hits.hitNow('a', false, budgets('a')), 'admit', 'the window moved on');
  });

  it('reads a stack against the budget it is given now, when that budget changes', () => {
    const { hits, at } = store();
    at(0);
    for (let i = 0; i < 6; i++) assert.equal(hits.hitNow('k', false, [{ key: 'k', max: 20, refusal: 'rate' }]), 'admit');
    assert.equal(hits.hitNow('k', false, [{ key: 'k', max: 3, refusal: 'rate' }]), 'rate');
  });
});

describe('MemoryHitStore against the rules written out', () => {
  it('answers every sequence of requests as the model does', () => {
    const event = fc.record({
      client: fc.integer({ min: 0, max: 3 }),
      gap: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 20_000 })),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 120 }), (steps) => {
        let t = 0;
        // Clients 0 and 1 are crawlers, 2 and 3 are not: a client's class does not change.
        const events = steps.map(({ client, gap }) => ({ client, crawler: client < 2, t: (t += gap) }));
        const { hits, at } = store();
        const verdicts = events.map((e) => {
          at(e.t);
          return hits.hitNow(`c${e.client}`, e.crawler);
        });
        assert.deepEqual(verdicts, model(events));
      }),
      { numRuns: 1000 },
    );
  });

  it('remembers at most maxClients clients, however many distinct ones arrive (1 M here)', () => {
    const { hits, at } = store(10_000);
    at(0);
    for (let i = 0; i < 1_000_000; i++) hits.hitNow(`client-${i}`, false);
    assert.ok(hits.size <= 10_000 && hits.size >= 5_000, `${hits.size} clients remembered`);
    at(1000);
    for (let i = 0; i < 10; i++) hits.hitNow('client-999999', false);
    assert.equal(hits.hitNow('client-999999', false), 'rate', 'the most recent clients keep their history');
  });
});
