// What the chaos report counts as "dropped list → verified full update": only that list's own next full
// update that its checksum verified makes good a drop.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DropRecovery, FullUpdates } from '../../../bench/chaos/chaos-clients.ts';
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
