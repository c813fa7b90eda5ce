// What the chaos report counts as "dropped list → verified full update": only that list's own next full
// update that its checksum verified makes good a drop; and how a client's verdicts are judged, by who gave them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DropRecovery, expectations, FullUpdates, judge } from '../../../bench/chaos/chaos-clients.ts';
import { markerUrl, stableUrls } from '../../../bench/chaos/feed-generations.ts';
import { SearchDeferredError } from '../../../src/client/client-errors.ts';
import type { CheckResult } from '../../../src/client/url-checks.ts';
import type { ClientEvent } from '../../../src/client/options.ts';

const dropped = (list: string): ClientEvent => ({ type: 'list-dropped', list, error: new Error('checksum-mismatch') });
const updated = (...stored: { list: string; partial: boolean; verified: boolean }[]): ClientEvent => ({
  type: 'update',
  lists: ['se-4b', 'mw-4b'],
  stored,
  nextUpdateAt: 0,
});

describe('DropRecovery', () => {
  it("makes good a drop only with that list's next full update that its checksum verified", () => {
    const recovery = new DropRecovery();
    recovery.onEvent(dropped('mw-4b'));
    recovery.onEvent(updated({ list: 'se-4b', partial: false, verified: true }));
    assert.equal(recovery.recovered, 0, "another list's update makes nothing good");
    recovery.onEvent(updated({ list: 'mw-4b', partial: true, verified: true }));
    assert.equal(recovery.recovered, 0, 'a diff is no full update');
    recovery.onEvent(updated({ list: 'mw-4b', partial: false, verified: false }));
    assert.equal(recovery.recovered, 0, 'a full update without a checksum is not verified');
    recovery.onEvent(updated({ list: 'se-4b', partial: false, verified: true }, { list: 'mw-4b', partial: false, verified: true }));
    assert.equal(recovery.recovered, 1);
    recovery.onEvent(updated({ list: 'mw-4b', partial: false, verified: true }));
    assert.equal(recovery.recovered, 1, 'a drop is made good once');
  });

  it('counts a list dropped again before it recovered as two drops, both made good by one full update', () => {
    const recovery = new DropRecovery();
    recovery.onEvent(dropped('se-4b'));
    recovery.onEvent(updated());
    recovery.onEvent(dropped('se-4b'));
    recovery.onEvent(dropped('mw-4b'));
    recovery.onEvent(updated({ list: 'se-4b', partial: false, verified: true }));
    assert.equal(recovery.recovered, 2, 'the two drops of se-4b; mw-4b never recovered');
  });
});

describe('FullUpdates', () => {
  it('counts a full update of a list held as a reset, but not the first one nor the one after a drop', () => {
    const resets = new FullUpdates();
    assert.deepEqual(resets.onEvent(updated({ list: 'se-4b', partial: false, verified: true })), [], 'the first update is full');
    assert.deepEqual(resets.onEvent(updated({ list: 'se-4b', partial: true, verified: true })), [], 'a diff');
    assert.deepEqual(resets.onEvent(updated({ list: 'se-4b', partial: false, verified: true })), ['se-4b'], 'sent back to a full list');
    resets.onEvent(dropped('se-4b'));
    assert.deepEqual(resets.onEvent(updated({ list: 'se-4b', partial: false, verified: true })), [], 'the full update after a drop');
    assert.deepEqual(resets.onEvent(updated({ list: 'mw-4b', partial: false, verified: true })), [], "another list's first update");
  });
});

describe('expectations and judge', () => {
  const checked = (url: string, verdict: 'SAFE' | 'UNSAFE', answeredBy: 'cache' | 'database' | 'server'): CheckResult => ({
    url,
    canonicalUrl: url,
    threats: [],
    verdict,
    answeredBy,
  });

  it("judges a real-time client's answer from its local lists by the generation it holds, a server's by what servers serve", () => {
    // Holding generation 1 while every instance serves 2 or 3 (a client whose updates were refused).
    const expected = expectations('realtime', 1, 2, 3);
    const listedByAll = expected.get(markerUrl(2))!;
    assert.equal(judge(listedByAll, checked(markerUrl(2), 'UNSAFE', 'server')), true);
    assert.equal(judge(listedByAll, checked(markerUrl(2), 'SAFE', 'server')), false, 'a server must list it');
    assert.equal(judge(listedByAll, checked(markerUrl(2), 'SAFE', 'cache')), false, 'so must its cached answer');
    // SB-8: the search failed, UNSURE, and current local lists of generation 1 do not hold marker 2.
    assert.equal(judge(listedByAll, checked(markerUrl(2), 'SAFE', 'database')), true);
    assert.equal(judge(expected.get(markerUrl(1))!, checked(markerUrl(1), 'SAFE', 'database')), false, 'the held lists hold marker 1');
    assert.equal(judge(expected.get(stableUrls[0]!)!, checked(stableUrls[0]!, 'SAFE', 'database')), false);
  });

  it('leaves a verdict that came with an error unjudged', () => {
    const expected = expectations('local', 3, 3, 3).get(markerUrl(3))!;
    const unchecked: CheckResult = {
      url: markerUrl(3),
      canonicalUrl: markerUrl(3),
      threats: [],
      verdict: 'UNKNOWN',
      error: new SearchDeferredError(0),
    };
    assert.equal(judge(expected, unchecked), undefined);
  });

  it("judges a local client's answers as before: the held marker confirmed, the next one and one removed SAFE", () => {
    const expected = expectations('local', 5, 5, 5);
    assert.deepEqual(expected.get(markerUrl(5)), { byServer: true, byHeldLists: true });
    assert.deepEqual(expected.get(markerUrl(6)), { byServer: false, byHeldLists: false });
    assert.deepEqual(expected.get(markerUrl(1)), { byServer: false, byHeldLists: false });
  });
});
