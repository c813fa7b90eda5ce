// How long one answer may hold its load-control place. A place is given back when its answer closes
// (load-control.ts), and the idle deadline (http-limits.ts, http2-limits.ts) closes an answer on which
// nothing moves. A client that takes a little now and then moves: an HTTP/2 client that sends a 64 KiB
// WINDOW_UPDATE every 20 s keeps a 9 MB list answer, and its place, for 47 minutes.
//
// So answers must be taken at a pace. Past a grace of the idle deadline, each answer under way on a
// connection owes `minAnswerBytesPerSecond`; a connection whose client has taken less than its answers
// owe is closed, which closes them and gives their places back. Holding a place costs bandwidth: an
// answer of S bytes holds it at most grace + S / rate, and a client taking r < rate is cut once
// (rate − r) × (time past the grace) outgrows what it took before.
//
// The account is kept per connection, not per answer: Node shows what a connection's socket has sent,
// not what one HTTP/2 stream has. A connection with n answers under way owes n times the rate, so
// answers multiplexed on one connection cost what they would on n.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { constants, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import { every, type MonotonicClock, systemClock } from '../../time/clock.ts';
import { type HttpLimits, stallSweepMs } from './http-limits.ts';
import { type Sending, sentBytes } from './sent-bytes.ts';

type Answer = ServerResponse | Http2ServerResponse;

/** One connection's account: what its answers owe so far, and when each answer under way started. */
interface Account {
  sending: Sending;
  cut: () => void;
  /** Each answer under way, and when its headers were first seen sent (undefined until then). */
  answers: Map<Answer, number | undefined>;
  owed: number;
  lookedAt: number;
}

const ACCOUNT = Symbol('sbkit answer account');
type Accounted = Answer & { [ACCOUNT]?: Account };

/** The 'close' listener of an accounted answer: one function for every answer, no closure per request. */
function settle(this: Accounted): void {
  this[ACCOUNT]?.answers.delete(this);
}

/**
 * Bytes that answers started at `started` owe between `from` and `to` (milliseconds): each pays
 * `bytesPerSecond` from `graceMs` after its start.
 */
export function owedBetween(started: Iterable<number>, from: number, to: number, graceMs: number, bytesPerSecond: number): number {
  let ms = 0;
  for (const at of started) ms += Math.max(0, to - Math.max(from, at + graceMs));
  return (ms * bytesPerSecond) / 1000;
}

/**
 * Closes the connections of `server` (plain HTTP/1.1, or TLS with HTTP/2 and HTTP/1.1) whose clients
 * take their answers more slowly than `limits.minAnswerBytesPerSecond` each, past a grace of
 * `limits.idleTimeoutMs`. Looked at every tenth of the grace, at most every second; per request this
 * notes the answer on its connection's account. Time is `clock`'s monotonic reading; the sweeps are its timers.
 */
export function paceAnswers(
  server: Server | Http2SecureServer,
  limits: Pick<HttpLimits, 'idleTimeoutMs' | 'minAnswerBytesPerSecond'>,
  clock: MonotonicClock = systemClock,
): void {
  const accounts = new Map<object, Account>();
  const accountOf = (request: IncomingMessage | Http2ServerRequest): Account | undefined => {
    const session = 'stream' in request ? request.stream.session : undefined;
    const connection: object | undefined = session ?? request.socket;
    if (connection === undefined) return undefined;
    let account = accounts.get(connection);
    if (account !== undefined) return account;
    const cut =
      session === undefined
        ? () => (connection as Socket).destroy()
        : // ENHANCE_YOUR_CALM: the GOAWAY code for a peer that costs the server too much.
          () => session.destroy(undefined, constants.NGHTTP2_ENHANCE_YOUR_CALM);
    const sending = (session?.socket ?? request.socket) as unknown as Sending;
    account = { sending, cut, answers: new Map(), owed: 0, lookedAt: clock.monotonic() };
    accounts.set(connection, account);
    (session ?? (connection as Socket)).once('close', () => accounts.delete(connection));
    return account;
  };
  server.on('request', (request: IncomingMessage | Http2ServerRequest, response: Answer) => {
    const account = accountOf(request);
    if (account === undefined) return;
    account.answers.set(response, undefined);
    (response as Accounted)[ACCOUNT] = account;
    response.once('close', settle);
  });
  const sweep = () => {
    const time = clock.monotonic();
    for (const account of accounts.values()) {
      const started: number[] = [];
      for (const [answer, at] of account.answers) {
        if (at !== undefined) started.push(at);
        else if (answer.headersSent) account.answers.set(answer, time);
      }
      account.owed += owedBetween(started, account.lookedAt, time, limits.idleTimeoutMs, limits.minAnswerBytesPerSecond);
      account.lookedAt = time;
      if (started.length > 0 && sentBytes(account.sending) < account.owed) account.cut();
    }
  };
  let stop: (() => void) | undefined;
  server.on('listening', () => {
    stop?.();
    stop = every(clock, stallSweepMs(limits.idleTimeoutMs), sweep);
  });
  server.on('close', () => stop?.());
}
