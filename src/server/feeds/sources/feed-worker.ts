// A feed worker thread (feed-worker-pool.ts starts it): takes tasks one at a time and answers each with
// the typed arrays moved, not copied (feed-part.ts).

import { parentPort } from 'node:worker_threads';
import { answer, type FeedWorkerTask, transferOf } from './feed-part.ts';

const port = parentPort;
if (port === null) throw new Error('feed-worker.ts runs as a worker thread (feed-worker-pool.ts), not on its own');
port.on('message', (task: FeedWorkerTask) => {
  void answer(task).then((reply) => port.postMessage(reply, transferOf(reply)));
});
