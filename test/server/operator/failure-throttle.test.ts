import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_THROTTLE_RULES, FailureThrottle } from '../../../src/server/operator/failure-throttle.ts';
import { FakeClock } from '../../support/fake-clock.ts';

/** Fails `client` until it is blocked; the block's length in ms. */
function failUntilBlocked(throttle: FailureThrottle, client: string): number {
  for (let i = 0; i < 100; i++) {
    assert.equal(throttle.retryAfterMs(client), 0);
    const { blockedMs } = throttle.failed(client);
    if (blockedMs > 0) return blockedMs;
  }
  assert.fail('never blocked');
}

describe('FailureThrottle', () => {
  it('blocks a client at its fifth failure within a minute, for a minute', () => {
    const clock = new FakeClock();
    const throttle = new FailureThrottle(ADMIN_THROTTLE_RULES, clock);
    for (let i = 1; i <= 4; i++) assert.deepEqual(throttle.failed('a'), { failures: i, blockedMs: 0 });
    assert.deepEqual(throttle.failed('a'), { failures: 5, blockedMs: 60_000 });
    assert.equal(throttle.retryAfterMs('a'), 60_000);
    assert.equal(throttle.retryAfterMs('b'), 0);
    clock.advance(59_999);
    assert.equal(throttle.retryAfterMs('a'), 1);
    clock.advance(1);
    assert.equal(throttle.retryAfterMs('a'), 0);
  });

  it('forgets failures spread wider than the window', () => {
    const clock = new FakeClock();
    const throttle = new FailureThrottle(ADMIN_THROTTLE_RULES, clock);
    for (let i = 0; i < 50; i++) {
      assert.equal(throttle.failed('slow').blockedMs, 0);
      clock.advance(15_000);
    }
  });

  it('doubles each next block up to a day, and starts again after a quiet day or a success', () => {
    const clock = new FakeClock();
    const throttle = new FailureThrottle(ADMIN_THROTTLE_RULES, clock);
    const blocks: number[] = [];
    for (let i = 0; i < 14; i++) {
      const blocked = failUntilBlocked(throttle, 'a');
      blocks.push(blocked / 60_000);
      clock.advance(blocked);
    }
    assert.deepEqual(blocks, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440, 1440, 1440]);
    clock.advance(ADMIN_THROTTLE_RULES.forgiveMs);
    assert.equal(failUntilBlocked(throttle, 'a'), 60_000);
    clock.advance(60_000);
    failUntilBlocked(throttle, 'a');
    clock.advance(120_000);
    throttle.succeeded('a');
    assert.equal(failUntilBlocked(throttle, 'a'), 60_000);
  });

  it('remembers at most maxClients clients, the least recent forgotten first', () => {
    const throttle = new FailureThrottle({ ...ADMIN_THROTTLE_RULES, maxClients: 100 }, new FakeClock());
    throttle.failed('early');
    for (let i = 0; i < 10_000; i++) throttle.failed(`client-${i}`);
    assert.equal(throttle.size, 100);
    assert.equal(throttle.failed('early').failures, 1);
    assert.equal(throttle.failed('client-9999').failures, 2);
  });

  it('forgets clients never blocked before a blocked one; blocked ones crowd out only each other, past half', () => {
    const clock = new FakeClock();
    const throttle = new FailureThrottle({ ...ADMIN_THROTTLE_RULES, maxClients: 100 }, clock);
    failUntilBlocked(throttle, 'blocked');
    for (let i = 0; i < 10_000; i++) throttle.failed(`client-${i}`);
    assert.equal(throttle.size, 100);
    assert.equal(throttle.retryAfterMs('blocked'), 60_000);
    clock.advance(60_000);
    assert.equal(failUntilBlocked(throttle, 'blocked'), 120_000, 'the doubling is kept');
    // Blocked clients crowd out each other, the least recent first, once they fill half the room.
    for (let i = 0; i < 49; i++) failUntilBlocked(throttle, `blocked-${i}`);
    assert.equal(throttle.retryAfterMs('blocked'), 120_000);
    failUntilBlocked(throttle, 'blocked-49');
    failUntilBlocked(throttle, 'blocked-50');
    assert.equal(throttle.size, 100);
    assert.equal(throttle.retryAfterMs('blocked'), 0);
    assert.equal(throttle.retryAfterMs('blocked-1'), 60_000);
  });

  it('forgets a blocked client already forgiven before any other', () => {
    const clock = new FakeClock();
    const throttle = new FailureThrottle({ ...ADMIN_THROTTLE_RULES, maxClients: 2 }, clock);
    failUntilBlocked(throttle, 'long ago');
    clock.advance(ADMIN_THROTTLE_RULES.forgiveMs + 60_000);
    throttle.failed('a');
    throttle.failed('b');
    assert.equal(throttle.failed('a').failures, 2);
    assert.equal(throttle.failed('b').failures, 2);
  });
});
