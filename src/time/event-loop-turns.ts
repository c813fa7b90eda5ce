// A feed of millions of lines takes seconds to parse, canonicalize and hash. Done in one go it holds the
// event loop for all that time: no request is answered, not even /healthz (S5). The work is cut into
// turns instead: it runs for at most a slice of time, then lets the loop answer what waits, then goes on.

import { nextTurn, systemClock } from './clock.ts';

/** Long enough that the yields cost little, short enough that a request waits no more than this. */
const DEFAULT_SLICE_MS = 10;

/**
 * The turns of one long piece of work on the event loop. `pause()` is cheap to call often: it yields
 * (nextTurn, after the I/O that waits) only once the current slice is spent. It measures real time on
 * purpose, the system's clock and not one a part was given: what it shares is the real event loop, which
 * a test's clock does not move.
 */
export class EventLoopTurns {
  private sliceStart = systemClock.monotonic();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** Yields to the event loop when this turn has run its slice; resolves at once otherwise. */
  async pause(): Promise<void> {
    if (systemClock.monotonic() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.sliceStart = systemClock.monotonic();
  }
}
