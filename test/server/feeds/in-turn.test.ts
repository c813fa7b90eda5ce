import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InTurn } from '../../../src/server/feeds/in-turn.ts';

describe('InTurn', () => {
  it('starts each piece of work once the one before has finished, in the order given', async () => {
    const turns = new InTurn();
    const events: string[] = [];
    let releaseFirst: () => void = () => {};
    const first = turns.run(async () => {
      events.push('first begins');
      await new Promise<void>((resolve) => (releaseFirst = resolve));
      events.push('first ends');
      return 1;
    });
    const second = turns.run(async () => {
      events.push('second begins');
      return 2;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(events, ['first begins'], 'the second waits for the first');
    releaseFirst();
    assert.deepEqual(await Promise.all([first, second]), [1, 2]);
    assert.deepEqual(events, ['first begins', 'first ends', 'second begins']);
  });

  it('runs work given after the queue has emptied', async () => {
    const turns = new InTurn();
    assert.equal(await turns.run(async () => 'once'), 'once');
    assert.equal(await turns.run(async () => 'again'), 'again');
  });
});
