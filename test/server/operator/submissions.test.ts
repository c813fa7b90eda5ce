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
    const submissions = new Submissions(3, 3);
    for (let n = 0; n < 5; n++) submissions.record(report(`198.51.100.${n}`, n));
    assert.deepEqual(
      submissions.newestFirst().map((s) => s.uri),
      ['http://4.example/', 'http://3.example/', 'http://2.example/'],
    );
    assert.deepEqual(submissions.counts(), { received: 5, kept: 3 });
  });

  it("lets one client's flood push out only its own reports, never another client's", () => {
    const submissions = new Submissions(10, 2);
    submissions.record(report('192.0.2.1', 1));
    for (let n = 100; n < 1100; n++) submissions.record(report('203.0.113.9', n));
    assert.deepEqual(
      submissions.newestFirst().map((s) => s.uri),
      ['http://1099.example/', 'http://1098.example/', 'http://1.example/'],
    );
  });

  it('property: never more than max in all, nor more than perClient of one client', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 8 }),
        (clients, max, perClient) => {
          const submissions = new Submissions(max, perClient);
          clients.forEach((client, n) => submissions.record(report(`client-${client}`, n)));
          const kept = submissions.newestFirst();
          assert.ok(kept.length <= max);
          const byClient = new Map<string, number>();
          for (const s of kept) byClient.set(s.client, (byClient.get(s.client) ?? 0) + 1);
          for (const count of byClient.values()) assert.ok(count <= perClient);
          if (clients.length > 0) assert.equal(kept[0]!.uri, `http://${clients.length - 1}.example/`, 'the newest is always kept');
        },
      ),
    );
  });
});
