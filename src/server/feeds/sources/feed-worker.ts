// A feed worker thread (feed-worker-pool.ts starts it): takes tasks one at a time and answers each with
// the typed arrays moved, not copied (feed-part.ts).

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { answer, type FeedWorkerTask, transferOf } from './feed-part.ts';

/** A nice value well below the main thread's (0), but not the lowest: the workers still finish soon. */
const WORKER_NICE = 10;

/**
 * S5: the main thread answers requests while the workers hash, and on a machine of two cores two busy
 * workers would take the CPU in turns with it (issue 29: /healthz waited up to 190 ms in a reload).
 * At a lower priority a worker leaves the CPU to the main thread whenever it has work. Linux keeps a
 * nice value per thread, and /proc/thread-self names this one; elsewhere setpriority would lower the
 * whole process, so the worker keeps the process's priority.
 */
function leaveTheCpuToTheMainThread(): void {
  let thread: string | undefined;
  try {
    thread = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1];
  } catch {
    return; // No /proc/thread-self: not Linux.
  }
  if (thread !== undefined) setPriority(Number(thread), WORKER_NICE);
}

const port = parentPort;
if (port === null) throw new Error('feed-worker.ts runs as a worker thread (feed-worker-pool.ts), not on its own');
leaveTheCpuToTheMainThread();
port.on('message', (task: FeedWorkerTask) => {
  void answer(task).then((reply) => port.postMessage(reply, transferOf(reply)));
});
