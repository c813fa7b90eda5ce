import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { closeStalledConnections, DEFAULT_HTTP_LIMITS, httpServerOptions } from '../../../src/server/http/http-limits.ts';
import { FakeClock } from '../../support/fake-clock.ts';

describe('httpServerOptions', () => {
  it('gives fastify and Node every deadline but the idle one, which closeStalledConnections keeps', () => {
    assert.deepEqual(httpServerOptions(DEFAULT_HTTP_LIMITS), {
      connectionTimeout: 0,
      keepAliveTimeout: 5_000,
      requestTimeout: 30_000,
      http: { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1000 },
    });
  });

  it('bounds the head by the whole request, and checks often enough for short deadlines', () => {
    const options = httpServerOptions({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 60_000, requestTimeoutMs: 300 });
    assert.equal(options.http.headersTimeout, 300);
    assert.equal(options.http.connectionsCheckingInterval, 30);
    assert.equal(
      httpServerOptions({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 50, requestTimeoutMs: 50 }).http.connectionsCheckingInterval,
      10,
    );
  });
});

/** A connection whose byte counts the test moves by hand. */
class FakeSocket extends EventEmitter {
  bytesRead = 0;
  bytesWritten = 0;
  writableLength = 0;
  destroyedAt: number | undefined;
  constructor(private readonly clock: FakeClock) {
    super();
  }
  destroy(): void {
    this.destroyedAt ??= this.clock.monotonic();
    this.emit('close');
  }
}

/** A server, listening, whose connections closeStalledConnections watches for `idleTimeoutMs` on a clock the test moves, sweeps included. */
function listening(idleTimeoutMs: number): { clock: FakeClock; server: EventEmitter } {
  const clock = new FakeClock(0);
  const server = new EventEmitter();
  closeStalledConnections(server as unknown as Server, idleTimeoutMs, clock);
  server.emit('listening');
  return { clock, server };
}

describe('closeStalledConnections', () => {
  it('closes a connection whose answer stands still for the idle deadline, and no other', () => {
    const { clock, server } = listening(1000);
    const idle = new FakeSocket(clock);
    const reading = new FakeSocket(clock);
    const slowReader = new FakeSocket(clock);
    const stalled = new FakeSocket(clock);
    // Between requests, and before the first: the keep-alive and head deadlines' (Node's), not this one's.
    const keptAlive = new FakeSocket(clock);
    const fresh = new FakeSocket(clock);
    // A request the server works on for longer than the deadline (an operator's reload of a large
    // feed): its answer has not started, so there is nothing for the client to take.
    const working = new FakeSocket(clock);
    for (const socket of [idle, reading, slowReader, stalled, keptAlive, fresh, working]) server.emit('connection', socket);
    for (const socket of [idle, reading, slowReader, stalled])
      server.emit('request', { socket }, { headersSent: true, writableFinished: false });
    server.emit('request', { socket: keptAlive }, { headersSent: true, writableFinished: true });
    const workingAnswer = { headersSent: false, writableFinished: false };
    server.emit('request', { socket: working }, workingAnswer);
    // An answer the stalled client never takes: written, then pending for ever.
    stalled.bytesWritten = 65_536;
    stalled.writableLength = 40_000;
    slowReader.bytesWritten = 65_536;
    slowReader.writableLength = 40_000;
    for (let step = 1; step <= 40; step++) {
      reading.bytesRead += 10;
      // The slow reader takes a little of its answer every half second.
      if (step % 5 === 0) slowReader.writableLength -= 100;
      clock.advance(100);
    }
    assert.equal(idle.destroyedAt, 1000);
    // Moved at the first look (100 ms), then not: closed a deadline later.
    assert.equal(stalled.destroyedAt, 1100);
    assert.equal(reading.destroyedAt, undefined);
    assert.equal(slowReader.destroyedAt, undefined);
    assert.equal(keptAlive.destroyedAt, undefined);
    assert.equal(fresh.destroyedAt, undefined);
    assert.equal(working.destroyedAt, undefined);
    // Its answer starts at 4000 ms and then stands still: the deadline counts from there.
    workingAnswer.headersSent = true;
    clock.advance(2000);
    assert.equal(working.destroyedAt, 5000);
  });

  it('closes a connection idle for the whole deadline and not before, and stops with the server', () => {
    const { clock, server } = listening(30_000);
    const idle = new FakeSocket(clock);
    server.emit('connection', idle);
    server.emit('request', { socket: idle }, { headersSent: true, writableFinished: false });
    clock.advance(29_900);
    assert.equal(idle.destroyedAt, undefined);
    // Looked at each second: the 30th look closes it.
    clock.advance(100);
    assert.equal(idle.destroyedAt, 30_000);
    const later = new FakeSocket(clock);
    server.emit('connection', later);
    server.emit('request', { socket: later }, { headersSent: true, writableFinished: false });
    server.emit('close');
    assert.equal(clock.pending, 0, 'no sweep left');
    clock.advance(90_000);
    assert.equal(later.destroyedAt, undefined);
  });
});
