// A feed worker that ends at its first task, with an exit code, as a worker past its memory limits or
// killed would: what feed-worker-pool.test.ts gives its pool instead of the real one.
import { parentPort } from 'node:worker_threads';

parentPort?.once('message', () => process.exit(3));
