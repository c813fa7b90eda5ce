import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Submissions } from '../../../src/server/operator/submissions.ts';

const report = (client: string, n: number) => ({
  at: `2026-11-28T12:00:${String(n % 60).padStart(2, '0')}Z`,
  project: 'p',
  uri: `http://${n}.example/`,
  client,
});

describe('Submissions', () => {
  it('keeps the newest, newest first, and counts every one received', () => {
    const submissions = new Submissions({ max: 3, perClient: 3 });
    for (let n = 0; n < 5; n++) submissions.record(report(`198.51.100.${n}`, n));
    assert.deepEqual(
      submissions.newestFirst().map((s) => s.uri),
      ['http://4.example/', 'http://3.example/', 'http://2.example/'],
    );
    assert.deepEqual(submissions.counts(), { received: 5, kept: 3 });
  });

  it("lets one client's flood push out only its own reports, never another client's", () => {
    const submissions = new Submissions({ max: 10, perClient: 2 });
    submissions.record(report('192.0.2.1', 1));
    for (let n = 100; n < 1100; n++) submissions.record(report('203.0.113.9', n));
    assert.deepEqual(
      submissions.newestFirst().map((s) => s.uri),
      ['http://1099.example/', 'http://1098.example/', 'http://1.example/'],
    );
  });

  it("counts an IPv6 client by its /64 and a neighbourhood by its /56: neither's flood pushes out another's reports", () => {
    const submissions = new Submissions({ max: 100, perClient: 3, perNeighbourhood: 5 });
    submissions.record(report('192.0.2.1', 1));
    submissions.record(report('2001:db8:1:1::1', 2));
    // One /64's addresses, and the /64s of the /56 the second client is in.
    for (let n = 100; n < 400; n++) submissions.record(report(`2001:db8:0:1::${n.toString(16)}`, n));
    for (let n = 400; n < 700; n++) submissions.record(report(`2001:db8:1:${(n & 0xff).toString(16)}::1`, n));
    const kept = submissions.newestFirst().map((s) => s.uri);
    assert.deepEqual(
      kept.slice(0, 5),
      [699, 698, 697, 696, 695].map((n) => `http://${n}.example/`),
      "the /56's newest five",
    );
    assert.deepEqual(
      kept.slice(5),
      [399, 398, 397, 1].map((n) => `http://${n}.example/`),
      "the /64's newest three, and the IPv4 client's",
    );
  });

  it('property: never more than max in all, perClient of one /64, perNeighbourhood of one /56; the newest kept', () => {
    const address = fc.oneof(
      fc.constantFrom('192.0.2.1', '192.0.2.2'),
      fc
        .tuple(
          fc.integer({ min: 0, max: 1 }),
          fc.integer({ min: 0, max: 2 }),
          fc.integer({ min: 0, max: 2 }),
          fc.integer({ min: 1, max: 3 }),
        )
        .map(([hood, high, low, host]) => `2001:db8:0:${hood}0${high}${low}::${host}`),
    );
    fc.assert(
      fc.property(
        fc.array(address, { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 8 }),
        (clients, max, perClient, more) => {
          const perNeighbourhood = perClient + more;
          const submissions = new Submissions({ max, perClient, perNeighbourhood });
          clients.forEach((client, n) => submissions.record(report(client, n)));
          const kept = submissions.newestFirst();
          assert.ok(kept.length <= max);
          for (const [blockOf, cap] of [
            [(client: string) => client.split('::')[0]!, perClient],
            // The fourth group is written in four digits: its first two end the /56.
            [(client: string) => client.split('::')[0]!.slice(0, client.includes(':') ? -2 : undefined), perNeighbourhood],
          ] as const) {
            const byBlock = new Map<string, number>();
            for (const s of kept) byBlock.set(blockOf(s.client), (byBlock.get(blockOf(s.client)) ?? 0) + 1);
            for (const count of byBlock.values()) assert.ok(count <= cap);
          }
          if (clients.length > 0) assert.equal(kept[0]!.uri, `http://${clients.length - 1}.example/`, 'the newest is always kept');
        },
      ),
    );
  });
});
