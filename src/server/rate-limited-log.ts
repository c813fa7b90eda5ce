// A log that an attacker cannot flood: at most `maxLines` lines per `windowMs`; what is left out is
// counted and said with the next line that is written.

/** A log function that writes at most `maxLines` lines per `windowMs` through `log`. */
export function rateLimitedLog(
  log: (message: string) => void,
  maxLines = 10,
  windowMs = 60_000,
  now: () => number = Date.now,
): (message: string) => void {
  let windowStart = -Infinity;
  let written = 0;
  let leftOut = 0;
  return (message) => {
    const time = now();
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
