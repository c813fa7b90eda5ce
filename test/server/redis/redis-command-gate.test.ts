import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommandGate } from '../../../src/server/redis/redis-command-gate.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const TIMEOUT_MS = 250;

/** A promise and the functions that settle it. */
function pending<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A gate on a fake clock whose PINGs the test answers, one by one. */
function gate() {
  const clock = new FakeClock();
  const pings: ReturnType<typeof pending<unknown>>[] = [];
  let reopened = 0;
  const commands = new CommandGate({
    timeoutMs: TIMEOUT_MS,
    clock,
    ping: () => {
      const ping = pending<unknown>();
      pings.push(ping);
      return ping.promise;
    },
    reopened: () => (reopened += 1),
  });
  return { clock, pings, commands, reopened: () => reopened };
}

/** Misses the deadline with one command that is never answered; resolves to the signal it was given. */
async function missDeadline(g: ReturnType<typeof gate>): Promise<AbortSignal> {
  let given: AbortSignal | undefined;
  const unanswered = g.commands.send((signal) => {
    given = signal;
    return new Promise(() => {});
  });
  g.clock.advance(TIMEOUT_MS);
  await assert.rejects(unanswered, { name: 'TimeoutError' });
  return given!;
}

describe('CommandGate', () => {
  it('answers with the reply within the deadline', async () => {
    const g = gate();
    assert.equal(await g.commands.send(() => Promise.resolve('OK')), 'OK');
    assert.equal(g.clock.pending, 0, 'the deadline cleared');
    assert.equal(g.pings.length, 0);
  });

  it('fails a command left unanswered at its deadline on the clock, and aborts its signal so that node-redis withdraws it', async () => {
    const g = gate();
    const signal = await missDeadline(g);
    assert.equal(signal.aborted, true);
    assert.equal(g.commands.holding, true);
  });

  it('passes on a failure within the deadline without holding', async () => {
    const g = gate();
    await assert.rejects(
      g.commands.send(() => Promise.reject(new Error('WRONGTYPE'))),
      /WRONGTYPE/,
    );
    assert.equal(g.commands.holding, false);
    assert.equal(g.pings.length, 0);
  });

  it('once a command missed its deadline, fails the next at once without handing them over, until a PING is answered', async () => {
    const g = gate();
    await missDeadline(g);
    let handedOver = 0;
    for (let i = 0; i < 100; i++) {
      await assert.rejects(
        g.commands.send(() => {
          handedOver += 1;
          return Promise.resolve('OK');
        }),
        /unanswered past 250 ms .* until it answers a PING/,
      );
    }
    assert.equal(handedOver, 0, 'nothing reaches node-redis while the gate holds');
    assert.equal(g.pings.length, 1, 'one probe at a time, however long it waits');

    g.pings[0]!.resolve('PONG');
    await g.pings[0]!.promise;
    assert.equal(g.commands.holding, false);
    assert.equal(g.reopened(), 1);
    assert.equal(await g.commands.send(() => Promise.resolve('OK')), 'OK');
  });

  it('probes again on a back-off when a probe fails at once', async () => {
    const g = gate();
    await missDeadline(g);
    for (const [failed, waitMs] of [50, 100, 200].entries()) {
      const probe = g.pings[failed]!;
      probe.reject(new Error('The client is offline'));
      await probe.promise.catch(() => undefined);
      g.clock.advance(waitMs - 1);
      assert.equal(g.pings.length, failed + 1);
      g.clock.advance(1);
      assert.equal(g.pings.length, failed + 2, `probe ${failed + 2} after ${waitMs} ms`);
    }
  });

  it('opens when a command sent before the hold is answered, and when the client says Redis answers', async () => {
    const g = gate();
    const unanswered = g.commands.send(() => new Promise(() => {}));
    g.clock.advance(100);
    const earlier = pending<string>();
    const answered = g.commands.send(() => earlier.promise);
    g.clock.advance(TIMEOUT_MS - 100);
    await assert.rejects(unanswered, { name: 'TimeoutError' });
    assert.equal(g.commands.holding, true);
    earlier.resolve('OK');
    assert.equal(await answered, 'OK');
    assert.equal(g.commands.holding, false);
    assert.equal(g.reopened(), 1);

    await missDeadline(g);
    assert.equal(g.commands.release(), true);
    assert.equal(g.commands.release(), false, 'already open');
    assert.equal(g.reopened(), 2);
  });
});
