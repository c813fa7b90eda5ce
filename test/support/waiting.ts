// Waiting in tests for what a real server, process or browser reaches on its own — never to prove that
// something does NOT happen (advance a fake clock past the moment for that: test/support/ has one).
// Every wait has a bound and names what it waited for, so a failure says what did not happen.

/** What a wait waited for: a phrase, or one made at the failure, to say how far things got. */
type What = string | (() => string);

const late = (what: What, ms: number) => new Error(`${typeof what === 'string' ? what : what()} not within ${ms} ms`);

/** `promise`, or a failure saying `what` did not happen within `ms`. */
export async function within<T>(ms: number, what: What, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(late(what, ms)), ms)));
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits, a few ms at a time, until `condition` holds, or fails saying `what` did not within `ms`. */
export async function until(ms: number, what: What, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await condition())) {
    if (performance.now() > deadline) throw late(what, ms);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
