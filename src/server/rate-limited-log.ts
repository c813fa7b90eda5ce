// A log that an attacker cannot flood: at most `maxLines` lines per `windowMs`; what is left out is
// counted and said with the next line that is written.

import { type Clock, systemClock } from '../time/clock.ts';

/** A log function that writes at most `maxLines` lines per `windowMs` of `clock` through `log`. */
export function rateLimitedLog(
  log: (message: string) => void,
  clock: Clock = systemClock,
  maxLines = 10,
  windowMs = 60_000,
): (message: string) => void {
  let windowStart = -Infinity;
  let written = 0;
  let leftOut = 0;
  return (message) => {
    const time = clock.now();
    if (time - windowStart >= windowMs) {
      windowStart = time;
      written = 0;
    }
    if (written >= maxLines) {
      leftOut++;
      return;
    }
    written++;
    log(leftOut === 0 ? message : `${message} (${leftOut} similar lines left out before this one)`);
    leftOut = 0;
  };
}
