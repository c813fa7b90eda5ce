import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LC_RATE_RULES, MemoryHitStore } from '../../../src/server/guard/hit-store.ts';
import { type Decision, LoadGate } from '../../../src/server/guard/load-gate.ts';

const BROWSER = { kind: 'browser' } as const;
const BOT = { kind: 'bot' } as const;
const CRAWLER = { kind: 'crawler', crawler: 'Googlebot' } as const;

/** A gate with LOAD_MAX 2, SLEEPING_MAX 1, whose sleeps end when the test says so. */
function gate() {
  const sleepers: (() => void)[] = [];
  const g = new LoadGate({ loadMax: 2, sleepingMax: 1, delayMs: 500 }, new MemoryHitStore(LC_RATE_RULES, 100, () => 0), (ms) => {
    assert.equal(ms, 500);
    return new Promise<void>((resolve) => sleepers.push(resolve));
  });
  const wake = async () => {
    for (const resolve of sleepers.splice(0)) resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { g, wake, sleepers };
}

const admitted = (d: Decision) => d.admit;

describe('LoadGate (LC-5)', () => {
  it('refuses everyone while the service is paused', async () => {
    const { g } = gate();
    assert.deepEqual(await g.decide('a', BROWSER, true), { admit: false, reason: 'paused' });
    assert.equal(g.load, 0);
  });

  it('serves browsers whatever the load (LC-1), and counts them in it', async () => {
    const { g } = gate();
    for (let i = 0; i < 5; i++) assert.ok(admitted(await g.decide(`browser-${i}`, BROWSER, false)));
    assert.equal(g.load, 5);
    g.finished();
    assert.equal(g.load, 4);
  });

  it('serves bots and crawlers at once while the load, theirs included, is at most LOAD_MAX', async () => {
    const { g } = gate();
    assert.ok(admitted(await g.decide('bot-1', BOT, false)));
    assert.ok(admitted(await g.decide('crawler', CRAWLER, false)));
    assert.equal(g.load, 2);
  });

  it('has a bot wait `delay` when loaded, then serves it if the load fell and refuses it if not', async () => {
    const { g, wake } = gate();
    await g.decide('b1', BROWSER, false);
    await g.decide('b2', BROWSER, false);
    const served = g.decide('bot-1', BOT, false);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(g.waiting, 1);
    g.finished();
    await wake();
    assert.deepEqual(await served, { admit: true });
    const refused = g.decide('bot-2', BOT, false);
    await new Promise((resolve) => setImmediate(resolve));
    await wake();
    assert.deepEqual(await refused, { admit: false, reason: 'load' });
    assert.equal(g.waiting, 0);
  });

  it('refuses at once a bot that finds more than SLEEPING_MAX others waiting', async () => {
    const { g, wake, sleepers } = gate();
    await g.decide('b1', BROWSER, false);
    await g.decide('b2', BROWSER, false);
    const waiting = [g.decide('bot-1', BOT, false), g.decide('bot-2', BOT, false)];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(g.waiting, 2, 'SLEEPING_MAX 1: a second sleeper joins when only one is waiting');
    assert.deepEqual(await g.decide('bot-3', BOT, false), { admit: false, reason: 'load' });
    assert.equal(sleepers.length, 2);
    await wake();
    assert.deepEqual(await Promise.all(waiting), [
      { admit: false, reason: 'load' },
      { admit: false, reason: 'load' },
    ]);
  });

  it('gives back the place in the load of a bot that the rate rules refuse', async () => {
    const hammer = new LoadGate(
      { loadMax: 100, sleepingMax: 1, delayMs: 1 },
      new MemoryHitStore(LC_RATE_RULES, 100, () => 0),
      async () => {},
    );
    for (let i = 0; i < 11; i++) await hammer.decide('same', BOT, false);
    assert.deepEqual(await hammer.decide('same', BOT, false), { admit: false, reason: 'rate' });
    assert.equal(hammer.load, 11, 'the eleven admitted; the refused one holds no place');
  });

  it("checks a crawler's own rules before load_defer, so a crawler too soon is refused at once, not after a wait", async () => {
    const { g, sleepers } = gate();
    assert.ok(admitted(await g.decide('crawler', CRAWLER, false)));
    await g.decide('b1', BROWSER, false);
    assert.deepEqual(await g.decide('crawler', CRAWLER, false), { admit: false, reason: 'crawler-recent' });
    assert.equal(sleepers.length, 0, 'it did not wait');
  });

  it('takes no place in the load for a client that left while it waited', async () => {
    const { g, wake } = gate();
    await g.decide('b1', BROWSER, false);
    await g.decide('b2', BROWSER, false);
    let left = false;
    const waiting = g.decide('bot', BOT, false, () => left);
    await new Promise((resolve) => setImmediate(resolve));
    g.finished();
    left = true;
    await wake();
    assert.deepEqual(await waiting, { admit: false, reason: 'load' });
    assert.equal(g.load, 1);
  });
});
