// S5 and issue 29: reading, canonicalizing and hashing a feed of millions of lines takes seconds of CPU.
// On the main thread, even in turns, it slows every request for that long and uses one core; here it runs
// on worker threads, one per core (two at most: the main thread serves meanwhile), each part of a feed on
// one of them (feed-bytes.ts feedParts), the results moved back as typed arrays.

import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { type Clock, deadline, type Deadline, systemClock } from '../../../time/clock.ts';
import { FeedEntryLimitError, FeedFormatError, FeedWorkerError } from '../feed-error.ts';
import { type FeedWorkerAnswer, type FeedWorkerTask, type HashedPart, type HashTask, ownsBuffer, type WorkerFailure } from './feed-part.ts';

/** Workers at most: one core stays the main thread's. */
const MAX_WORKERS = 2;
/**
 * A worker idle this long is stopped: its heap, grown to a feed's size, would otherwise stay with the
 * process between loads (an hour for a URL feed); starting one again takes tens of milliseconds.
 */
const IDLE_MS = 1000;
/** No part of a feed within the limits takes a worker this long (a million URLs take a few seconds). */
const DEFAULT_TASK_TIMEOUT_MS = 10 * 60_000;

export interface FeedWorkerPoolOptions {
  /** Workers at most; min(2, available cores) by default. */
  size?: number;
  /** Bounds of each worker's memory (node:worker_threads); a worker past them ends, and a task it held fails as `crashed`. */
  resourceLimits?: ResourceLimits;
  /** The clock of the tasks' timeout. */
  clock?: Clock;
  /** How long a task may take before its worker is stopped; 10 minutes by default. */
  taskTimeoutMs?: number;
  /** The module each worker runs: feed-worker beside this one by default (tests give one that ends). */
  entry?: URL;
}

interface Job {
  task: FeedWorkerTask;
  transfer: ArrayBuffer[];
  resolve(value: HashedPart | Uint8Array): void;
  reject(error: Error): void;
  timeout?: Deadline;
}

/**
 * Worker threads that hash feeds' parts and merge their results, started when needed and stopped once
 * idle for IDLE_MS. An idle worker does not keep the process alive. A worker that ends while it works
 * fails its task with FeedWorkerError (`crashed`) and is replaced at the next task.
 */
export class FeedWorkerPool {
  readonly size: number;
  private readonly idle: Worker[] = [];
  /** The timers that stop idle workers. */
  private readonly retirements = new Map<Worker, unknown>();
  private readonly jobs = new Map<Worker, Job | undefined>();
  private readonly waiting: Job[] = [];
  private readonly clock: Clock;
  private readonly taskTimeoutMs: number;

  constructor(private readonly options: FeedWorkerPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? Math.min(MAX_WORKERS, availableParallelism())));
    this.clock = options.clock ?? systemClock;
    this.taskTimeoutMs = options.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
  }

  /**
   * The full hashes and tally of one part of a feed (feed-part.ts hashPart). Bytes in a SharedArrayBuffer
   * (feed-bytes.ts) are read by the worker in place; others are moved to it, `task.bytes` then empty.
   * Rejects with FeedFormatError, FeedEntryLimitError or FeedWorkerError.
   */
  hash(task: HashTask): Promise<HashedPart> {
    if (task.bytes.buffer instanceof SharedArrayBuffer) return this.run(task, []) as Promise<HashedPart>;
    const bytes = movable(task.bytes);
    return this.run({ ...task, bytes }, [bytes.buffer]) as Promise<HashedPart>;
  }

  /**
   * The union of runs of sorted, distinct full hashes. The runs are moved to the worker, or copied when
   * `keep` (a list's sources keep their copies for the next merge). Rejects with FeedWorkerError.
   */
  merge(runs: readonly Uint8Array[], keep = false): Promise<Uint8Array> {
    if (keep) return this.run({ kind: 'merge', runs: [...runs] }, []) as Promise<Uint8Array>;
    const moved = runs.map(movable);
    return this.run(
      { kind: 'merge', runs: moved },
      moved.map((run) => run.buffer),
    ) as Promise<Uint8Array>;
  }

  /** Stops every worker; a task under way or waiting fails as `crashed`. */
  async close(): Promise<void> {
    for (const timer of this.retirements.values()) this.clock.clearTimeout(timer);
    this.retirements.clear();
    for (const job of this.waiting.splice(0)) job.reject(new FeedWorkerError('crashed', 'was stopped: the pool closed'));
    await Promise.all([...this.jobs.keys()].map((worker) => worker.terminate()));
  }

  private run(task: FeedWorkerTask, transfer: ArrayBuffer[]): Promise<HashedPart | Uint8Array> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** Gives waiting tasks to idle workers, starting workers up to the pool's size. */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      const worker = this.idle.pop() ?? (this.jobs.size < this.size ? this.start() : undefined);
      if (worker === undefined) return;
      this.clock.clearTimeout(this.retirements.get(worker));
      this.retirements.delete(worker);
      const job = this.waiting.shift()!;
      this.jobs.set(worker, job);
      worker.ref();
      job.timeout = deadline(this.clock, this.taskTimeoutMs);
      job.timeout.signal.addEventListener('abort', () => {
        this.lost(worker, new FeedWorkerError('timeout', `gave no answer within ${this.taskTimeoutMs / 1000} s and was stopped`));
        void worker.terminate();
      });
      worker.postMessage(job.task, job.transfer);
    }
  }

  private start(): Worker {
    const worker = startWorker(this.options.resourceLimits, this.options.entry);
    this.jobs.set(worker, undefined);
    worker.on('message', (reply: FeedWorkerAnswer) => this.answered(worker, reply));
    worker.on('error', (error) => this.lost(worker, new FeedWorkerError('crashed', `ended: ${error.message}`)));
    worker.on('exit', (code) => this.lost(worker, new FeedWorkerError('crashed', `ended with exit code ${code}`)));
    return worker;
  }

  private answered(worker: Worker, reply: FeedWorkerAnswer): void {
    const job = this.jobs.get(worker);
    if (job === undefined) return;
    job.timeout?.clear();
    this.jobs.set(worker, undefined);
    worker.unref();
    this.idle.push(worker);
    if (reply.ok) job.resolve(reply.value);
    else job.reject(failureError(reply.failure));
    this.dispatch();
    if (this.idle.includes(worker)) this.retireLater(worker);
  }

  private retireLater(worker: Worker): void {
    this.retirements.set(
      worker,
      this.clock.setTimeout(() => {
        this.retirements.delete(worker);
        const at = this.idle.indexOf(worker);
        if (at < 0) return;
        this.idle.splice(at, 1);
        this.jobs.delete(worker);
        void worker.terminate();
      }, IDLE_MS),
    );
  }

  /** A worker ended or was stopped: its task fails, and the next task starts another. */
  private lost(worker: Worker, error: FeedWorkerError): void {
    if (!this.jobs.has(worker)) return;
    const job = this.jobs.get(worker);
    this.jobs.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    this.clock.clearTimeout(this.retirements.get(worker));
    this.retirements.delete(worker);
    job?.timeout?.clear();
    job?.reject(error);
    this.dispatch();
  }
}

/** The error a worker's failure stands for, made again on this thread. */
function failureError(failure: WorkerFailure): Error {
  switch (failure.kind) {
    case 'format':
      return new FeedFormatError(failure.message);
    case 'entry-limit':
      return new FeedEntryLimitError(failure.maxEntries);
    case 'failed':
      return new FeedWorkerError('failed', `failed: ${failure.message}`);
  }
}

/** `array` in an ArrayBuffer of its own, which can be moved to a worker: itself when it is, else a copy. */
function movable(array: Uint8Array): Uint8Array<ArrayBuffer> {
  return ownsBuffer(array) ? array : new Uint8Array(array);
}

/**
 * A worker running feed-worker.js beside this module. From the sources (tests and the bench run them
 * under tsx) Node 20's workers do not apply the parent's `--import` hooks to their own entry, so the
 * worker registers tsx's hooks itself before it imports the TypeScript entry.
 */
function startWorker(resourceLimits: ResourceLimits | undefined, given: URL | undefined): Worker {
  const fromSources = extname(fileURLToPath(import.meta.url)) === '.ts';
  const entry = given ?? new URL(`./feed-worker${fromSources ? '.ts' : '.js'}`, import.meta.url);
  const options = resourceLimits === undefined ? {} : { resourceLimits };
  if (!fromSources) return new Worker(entry, options);
  const loader = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(loader)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}

/**
 * Issue 29: a worker's young generation bounded well below V8's default. A feed's lines become garbage
 * within a slice (feed-part.ts), so a small young generation holds all that lives, and two workers'
 * default ones were most of the ~100 MB the process grew by while hashing a million URLs. The old
 * generation is left unbounded: a CSV feed's text is read whole, as large as the feed.
 */
const SERVER_WORKER_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 8 };

/** A pool of a server's feed workers: the one a FeedLists hashes its feeds on and stops as it closes. */
export function serverFeedWorkers(): FeedWorkerPool {
  return new FeedWorkerPool({ resourceLimits: SERVER_WORKER_LIMITS });
}

/** The pool of SourceStates made without one, started at the first feed hashed. */
let shared: FeedWorkerPool | undefined;

/** The process's feed workers, for SourceStates made without a pool of their own. */
export function feedWorkers(): FeedWorkerPool {
  shared ??= serverFeedWorkers();
  return shared;
}
