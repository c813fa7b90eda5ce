// The service's parts opened in turn and closed in the reverse order, each once; a close cut at the
// shutdown deadline on a fake clock; a start abandoned while a part is still opening.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Opened, stopAll } from '../../src/server/service-lifecycle.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { loggerOf } from '../../src/server/logger.ts';

/** A part that notes its close in `closed`, failing with `error` when given one. */
function part(name: string, closed: string[], error?: Error) {
  return {
    close: () => {
      closed.push(name);
      if (error !== undefined) throw error;
    },
  };
}

/** Lets every promise settled so far run its callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('Opened', () => {
  it('closes the parts last opened first, each once, and goes on past one that fails', async () => {
    const closed: string[] = [];
    const opened = new Opened(undefined, new FakeClock());
    const failure = new Error('the data folder could not be closed');
    opened.add('the lists in Redis', part('redis', closed));
    await opened.open('the data folder', async () => part('folder', closed, failure));
    opened.add('the feeds', part('feeds', closed));
    assert.deepEqual(await opened.closeAll(Number.POSITIVE_INFINITY), { cut: [], errors: [failure] });
    assert.deepEqual(closed, ['feeds', 'folder', 'redis']);
    assert.deepEqual(await opened.closeAll(Number.POSITIVE_INFINITY), { cut: [], errors: [] }, 'nothing is closed twice');
    assert.deepEqual(closed, ['feeds', 'folder', 'redis']);
  });

  it('stops waiting for a part once the clock reads the deadline, names it and those behind it, and tells them to close', async () => {
    const clock = new FakeClock();
    const closed: string[] = [];
    const opened = new Opened(undefined, clock);
    opened.add('the feeds', part('feeds', closed));
    opened.add('the lists in Redis', { close: () => new Promise<void>(() => closed.push('redis')) });
    opened.add('the search cache', part('search cache', closed));
    let outcome: { cut: string[]; errors: unknown[] } | undefined;
    void opened.closeAll(clock.now() + 1000).then((result) => (outcome = result));
    await settle();
    assert.equal(outcome, undefined, 'waiting for Redis before the deadline');
    clock.advance(999);
    await settle();
    assert.equal(outcome, undefined, 'still waiting 1 ms before the deadline');
    clock.advance(1);
    await settle();
    assert.deepEqual(outcome, { cut: ['the lists in Redis', 'the feeds'], errors: [] });
    assert.deepEqual(closed, ['search cache', 'redis', 'feeds'], 'the part behind the one cut told to close all the same');
  });

  it('abandons a start at once when its signal aborts, and closes a part that opens after that', async () => {
    const abort = new AbortController();
    const opened = new Opened(abort.signal, new FakeClock());
    const closed: string[] = [];
    let open = (_part: { close: () => void }) => {};
    const opening = opened.open('the lists in Redis', () => new Promise<{ close: () => void }>((resolve) => (open = resolve)));
    abort.abort(new Error('SIGTERM'));
    await assert.rejects(opening, /SIGTERM/);
    open(part('redis', closed));
    await settle();
    assert.deepEqual(closed, ['redis']);
    assert.deepEqual(await opened.closeAll(Number.POSITIVE_INFINITY), { cut: [], errors: [] }, 'the late part is not among the opened');
    let ran = false;
    await assert.rejects(async () => opened.step(async () => void (ran = true)), /SIGTERM/);
    assert.equal(ran, false, 'no step runs once the start is abandoned');
  });
});

describe('stopAll', () => {
  it('closes the server first, then the parts within what remains of the timeout, and logs those it stopped waiting for', async () => {
    const clock = new FakeClock();
    const order: string[] = [];
    const lines: string[] = [];
    const opened = new Opened(undefined, clock);
    opened.add('the lists in Redis', { close: () => new Promise<void>(() => order.push('redis')) });
    let serverClosed = () => {};
    const server = {
      close: () => {
        order.push('server');
        return new Promise<void>((resolve) => (serverClosed = resolve));
      },
    } as unknown as Parameters<typeof stopAll>[0];
    let outcome: { cut: string[]; errors: unknown[] } | undefined;
    void stopAll(
      server,
      opened,
      2000,
      loggerOf((line) => lines.push(line)),
    ).then((result) => (outcome = result));
    await settle();
    assert.deepEqual(order, ['server'], 'the parts wait for the server');
    clock.advance(1500);
    serverClosed();
    await settle();
    assert.deepEqual(order, ['server', 'redis']);
    clock.advance(499);
    await settle();
    assert.equal(outcome, undefined, 'the parts get what remains of the 2 s, not 2 s more');
    clock.advance(1);
    await settle();
    assert.deepEqual(outcome, { cut: ['the lists in Redis'], errors: [] });
    assert.deepEqual(lines, ['stopped without waiting for the lists in Redis to close: the 2 s to stop had passed']);
  });
});
