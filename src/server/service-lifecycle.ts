// How the service's parts open and close: in turn as the service starts, each closed once, the last
// opened first, when the service stops or when starting it fails half-way. A start the process was told
// to abandon stops waiting at once; a stop takes no longer than the shutdown timeout, whatever a part does.

import type { MonotonicClock } from '../time/clock.ts';
import type { SafeBrowsingServer } from './http/server.ts';
import type { Logger } from './logger.ts';

interface Closable {
  close(): Promise<void> | void;
}

/**
 * Things opened in turn, closed in the reverse order, each once, whatever the others do. A start that
 * is abandoned (its `signal` aborts: the process was told to stop) stops waiting for the step under way
 * at once: a Redis that never answers or a feed that stalls must not hold a stop.
 */
export class Opened {
  private readonly parts: { name: string; close: () => Promise<void> | void }[] = [];

  /**
   * @param signal aborted when the start is to be abandoned.
   * @param clock what the deadline of {@link closeAll} is read on: its monotonic time, which no change
   *   of the wall clock moves while the service stops.
   */
  constructor(
    readonly signal: AbortSignal | undefined,
    readonly clock: MonotonicClock,
  ) {}

  /** `name` says what it is in the log line of a close that was cut. */
  add<T extends Closable>(name: string, part: T): T {
    this.parts.push({ name, close: () => part.close() });
    return part;
  }

  /** Opens a part with `open` and adds it; a part that opens only after the start was abandoned is closed then. */
  async open<T extends Closable>(name: string, open: () => Promise<T>): Promise<T> {
    const part = await this.step(
      open,
      (late) =>
        void Promise.resolve()
          .then(() => late.close())
          .catch(() => undefined),
    );
    return this.add(name, part);
  }

  /**
   * Runs a step of the start, unless the start was abandoned: then, or once it is while the step is under
   * way, rejects with the signal's reason without waiting for the step, and hands what it gives later to `late`.
   */
  step<T>(run: () => Promise<T>, late: (value: T) => void = () => {}): Promise<T> {
    const { signal } = this;
    if (signal === undefined) return run();
    signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      // The signal's reason: an AbortError unless whoever aborted gave another.
      const abandon = () => reject(signal.reason as Error);
      signal.addEventListener('abort', abandon, { once: true });
      run()
        .finally(() => signal.removeEventListener('abort', abandon))
        .then((value) => (signal.aborted ? late(value) : resolve(value)), reject);
    });
  }

  /**
   * Closes every part, the last opened first. Once the clock's monotonic time reaches `deadline`, the parts not yet closed
   * are told to close all at once and nobody waits for them (a Redis that stopped answering must not hold
   * a stop without end): resolves to their names, and to the errors of parts that failed to close.
   */
  async closeAll(deadline: number): Promise<{ cut: string[]; errors: unknown[] }> {
    const errors: unknown[] = [];
    const left = this.parts.splice(0).reverse();
    const close = (part: { close: () => Promise<void> | void }) =>
      Promise.resolve()
        .then(() => part.close())
        .catch((error: unknown) => void errors.push(error));
    while (left.length > 0) {
      if (!(await settlesBy(close(left[0]!), deadline, this.clock))) {
        for (const part of left.slice(1)) void close(part);
        return { cut: left.map((part) => part.name), errors };
      }
      left.shift();
    }
    return { cut: [], errors };
  }
}

/** Whether `done` settles before the monotonic time of `clock` reaches `deadline`. */
async function settlesBy(done: Promise<void>, deadline: number, clock: MonotonicClock): Promise<boolean> {
  if (deadline === Number.POSITIVE_INFINITY) return done.then(() => true);
  let timer: unknown;
  const late = new Promise<false>((resolve) => (timer = clock.setTimeout(() => resolve(false), Math.max(0, deadline - clock.monotonic()))));
  try {
    return await Promise.race([done.then(() => true as const), late]);
  } finally {
    clock.clearTimeout(timer);
  }
}

/**
 * Stops the server, if it was made, then closes the parts opened, all within `timeoutMs`: the server lets
 * requests under way finish within it by itself (connection-drain.ts), the parts behind it get what
 * remains. Resolves to the parts left closing (logged) and the errors of those that failed to close.
 */
export async function stopAll(
  server: SafeBrowsingServer | undefined,
  opened: Opened,
  timeoutMs: number,
  log: Logger,
): Promise<{ cut: string[]; errors: unknown[] }> {
  const stopBy = opened.clock.monotonic() + timeoutMs;
  const serverError = await server?.close().then(
    () => undefined,
    (error: unknown) => error,
  );
  const { cut, errors } = await opened.closeAll(stopBy);
  if (cut.length > 0) log.warn(`stopped without waiting for ${cut.join(', ')} to close: the ${timeoutMs / 1000} s to stop had passed`);
  if (serverError !== undefined) errors.unshift(serverError);
  return { cut, errors };
}
