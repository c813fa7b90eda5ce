// A SearchClock whose timers run only when a test moves it: the upstream searches' schedule (its
// bucket, shares and waits) is driven by hand, in the unit tests and on loopback alike.

import type { SearchClock } from '../../../src/server/proxy/upstream-searches.ts';

export interface ManualSearchClock extends SearchClock {
  /** Moves time on by `ms`, running the timers that fall due on the way, in order. */
  advance(ms: number): Promise<void>;
}

export function manualSearchClock(): ManualSearchClock {
  let now = 0;
  const timers: { at: number; run: () => void }[] = [];
  return {
    now: () => now,
    setTimeout: (run, ms) => timers.push({ at: now + ms, run }),
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve));
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (next === undefined || next.at > until) break;
        timers.shift();
        now = next.at;
        next.run();
      }
      now = until;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
