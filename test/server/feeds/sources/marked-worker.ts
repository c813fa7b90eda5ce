// A feed worker that does the real one's work (feed-worker.ts) unless a feed holds a line that tells it
// otherwise: "end the worker" ends it with an exit code, as a worker past its memory limits or killed
// would; "hold the worker" has it never answer, as a hung one, and say on HELD_CHANNEL that it holds the
// task. What tests give a pool (its `entry`) to make a worker fail on cue.

import { parentPort } from 'node:worker_threads';
import { answer, type FeedWorkerTask, transferOf } from '../../../../src/server/feeds/sources/feed-part.ts';

/** The BroadcastChannel on which a worker says it holds a task and will not answer. */
export const HELD_CHANNEL = 'sbkit-test-feed-worker-held';

const port = parentPort;
port?.on('message', (task: FeedWorkerTask) => {
  const text = task.kind === 'hash' ? Buffer.from(task.bytes).toString() : '';
  if (text.includes('end the worker')) process.exit(3);
  if (text.includes('hold the worker')) {
    const held = new BroadcastChannel(HELD_CHANNEL);
    held.postMessage('held');
    held.close();
    return;
  }
  void answer(task).then((reply) => port.postMessage(reply, transferOf(reply)));
});
