// One chaos run: two `sbkit serve` instances sharing a private Redis behind nginx, 20 clients updating
// and searching throughout, the feed publishing a new generation every few seconds, and meanwhile an
// instance killed (-9) and started again, Redis killed and started again empty, and (in the long form)
// an instance stopped gracefully and started again, as a deploy does. Redis may instead be a primary
// with replicas behind Sentinels, or a Cluster, whose primary is killed and a replica promoted. Then
// the faults end, publications stop, and the run measures how long each client takes to hold the
// newest generation written.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChaosClient, type ClientTally, type Publication } from './chaos-clients.ts';
import { ChaosRedisSetup, type RedisSetup } from './chaos-redis.ts';
import { Front, type FrontAnswer, Instance } from './cluster.ts';
import { feedText, Generations, likelySafeEntries, malwareEntries, ROTATING_LIST } from './feed-generations.ts';

type Fault = 'kill-instance' | 'restart-redis' | 'redeploy-instance' | 'sentinel-failover' | 'cluster-failover';

/** The Redis each fault needs; the instance faults do with any. */
const FAULT_SETUP: Partial<Record<Fault, RedisSetup>> = {
  'restart-redis': 'server',
  'sentinel-failover': 'sentinel',
  'cluster-failover': 'cluster',
};

export interface ChaosSettings {
  /** Clients in local-list mode and in real-time mode; 10 and 10. */
  localClients: number;
  realtimeClients: number;
  /** How often the feed publishes a new generation. */
  publishEveryMs: number;
  /** Quiet time before the first fault and between faults. */
  faultGapMs: number;
  /** Redis as one server (the default), a Sentinel set, or a Cluster. */
  redis?: RedisSetup;
  /** The faults, in order. */
  faults: Fault[];
  /** How long a killed instance or Redis stays down. */
  downMs: number;
  /** How long clients may take to reach the last generation once the faults have ended. */
  convergeTimeoutMs: number;
  /** Progress lines, for the script. */
  progress?: (line: string) => void;
}

export interface ChaosReport {
  durationMs: number;
  generations: number;
  /**
   * For a fault of Redis, recoveryMs: from Redis answering again (restarted) or from the primary's kill
   * (a failover) until every running instance served the generation written during the fault;
   * undefined when one never did.
   */
  faults: { fault: Fault; atMs: number; detail: string; recoveryMs?: number | undefined }[];
  /** Answers of the front. */
  requests: number;
  byStatus: Map<number, number>;
  /** 503s, and those of them without Retry-After. */
  unavailable: number;
  unavailableWithoutRetryAfter: number;
  /** 5xx answers other than 503, as "status uri" lines. */
  otherServerErrors: string[];
  /** Answers for which nginx tried another instance after one failed. */
  retriedElsewhere: number;
  clients: ClientTally[];
  /** Per client, ms from the end of the faults to holding the last generation; undefined: never within the time. */
  convergeMs: Map<string, number | undefined>;
  /** Instances' exit statuses on SIGTERM (redeploys and the end of the run). */
  stopStatuses: (number | null)[];
  /** Log lines of the instances worth a look: warnings and errors. */
  notableLogLines: string[];
}

const ADMIN_TOKEN = randomBytes(32).toString('hex');
/**
 * The key the run's own look at what each instance serves (ServedGenerations, ten a second) is budgeted
 * by: as one more client from 127.0.0.1 it would soon be refused by load control, and judge nothing.
 */
const WATCH_KEY = `chaos-watch-${randomBytes(8).toString('hex')}`;
/** How long a real-time client may keep a search answer: cacheDurationSeconds. */
const CACHE_SECONDS = 1;
/** The longest a search's round trip is taken to last, on a loaded machine. */
const ANSWER_LATENCY_MS = 3000;
/** From a primary's kill to the publication that falls into its absence. */
const FAILOVER_PUBLICATION_DELAY_MS = 300;

function serverConfig(keys: string[]): object {
  return {
    minimumWaitSeconds: 1,
    cacheDurationSeconds: CACHE_SECONDS,
    listCacheSeconds: 0,
    keepVersions: 10,
    apiKeys: [...keys, WATCH_KEY],
    adminToken: ADMIN_TOKEN,
    loadControl: { trustedProxies: ['127.0.0.1'], keyBudgets: { [WATCH_KEY]: 100_000 } },
    lists: [
      { name: ROTATING_LIST, threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ file: 'se.txt', format: 'expressions' }] },
      { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: malwareEntries }] },
      { name: 'gc-32b', likelySafeTypes: ['GENERAL_BROWSING'], sources: [{ entries: likelySafeEntries }] },
    ],
  };
}

/** Which generation each instance serves, polled: the floor clients' verdicts are judged against. */
class ServedGenerations {
  /** Per instance, what it answered and when the answer arrived. */
  private readonly samples = new Map<Instance, { at: number; generation: number }[]>();
  private polling = true;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly instances: readonly Instance[],
    private readonly generations: Generations,
  ) {}

  start(): void {
    this.loop = (async () => {
      while (this.polling) {
        for (const instance of this.instances) {
          if (!instance.running) continue;
          const generation = await this.servedBy(instance);
          if (generation !== undefined)
            this.samples.set(instance, [...(this.samples.get(instance) ?? []), { at: performance.now(), generation }]);
        }
        await sleep(100);
      }
    })();
  }

  async stop(): Promise<void> {
    this.polling = false;
    await this.loop;
  }

  async servedBy(instance: Instance): Promise<number | undefined> {
    try {
      const answer = await fetch(`${instance.url}/status.json`, {
        headers: { 'x-goog-api-key': WATCH_KEY },
        signal: AbortSignal.timeout(2000),
      });
      const status = (await answer.json()) as {
        lists: { name: string; version: string }[];
      };
      const version = status.lists.find((list) => list.name === ROTATING_LIST)?.version;
      return version === undefined ? undefined : this.generations.ofSnapshotId(version);
    } catch {
      return undefined;
    }
  }

  /**
   * The first moment (performance.now()) from `since` on by which every running instance had served
   * `generation` or a newer one; undefined when one never did.
   */
  allServed(generation: number, since: number): number | undefined {
    let last = since;
    for (const instance of this.instances) {
      if (!instance.running) continue;
      const first = (this.samples.get(instance) ?? []).find((sample) => sample.at >= since && sample.generation >= generation);
      if (first === undefined) return undefined;
      last = Math.max(last, first.at);
    }
    return last;
  }

  /**
   * A generation that every search answer a client may still use was computed from, or a newer one;
   * -1 when that is not known. An instance serves ever newer generations, so one that said g at some
   * moment serves g or newer from then on; an answer in use now was computed at most a search's cache
   * duration and its round trip ago. So: each running instance's newest answer from before that, the
   * oldest of those (an instance without one, just started, leaves it unknown).
   */
  floor(): number {
    const before = performance.now() - CACHE_SECONDS * 1000 - ANSWER_LATENCY_MS;
    let floor = Infinity;
    for (const instance of this.instances) {
      if (!instance.running) continue;
      const told = (this.samples.get(instance) ?? []).filter((sample) => sample.at <= before).at(-1);
      if (told === undefined) return -1;
      floor = Math.min(floor, told.generation);
    }
    return floor === Infinity ? -1 : floor;
  }
}

export async function runChaos(settings: ChaosSettings): Promise<ChaosReport> {
  const setup = settings.redis ?? 'server';
  for (const fault of settings.faults) {
    const needs = FAULT_SETUP[fault];
    if (needs !== undefined && needs !== setup) throw new Error(`the fault ${fault} needs Redis as ${needs}, not ${setup}`);
  }
  const progress = settings.progress ?? (() => {});
  const dir = await mkdtemp(join(tmpdir(), 'sbkit-chaos-'));
  const startedAt = performance.now();
  const since = () => Math.round(performance.now() - startedAt);
  const clientCount = settings.localClients + settings.realtimeClients;
  const keys = Array.from({ length: clientCount }, (_, i) => `chaos-key-${i}-${randomBytes(4).toString('hex')}`);
  const generations = new Generations();
  let newest = 0;
  generations.learn(0);
  const feed = join(dir, 'se.txt');
  const writeFeed = async (g: number) => {
    await writeFile(`${feed}.tmp`, feedText(g));
    await rename(`${feed}.tmp`, feed);
  };
  await writeFeed(0);
  await writeFile(join(dir, 'sbkit.json'), JSON.stringify(serverConfig(keys), null, 2));

  const redis = await ChaosRedisSetup.start(setup);
  const args = ['--config', join(dir, 'sbkit.json'), '--redis', redis.url, '--redis-prefix', 'chaos:', '--shutdown-timeout', '5'];
  const instances = [await Instance.create('instance A', args), await Instance.create('instance B', args)];
  const stopStatuses: (number | null)[] = [];
  let front: Front | undefined;
  const clients: ChaosClient[] = [];
  const served = new ServedGenerations(instances, generations);
  try {
    for (const instance of instances) await instance.start();
    front = await Front.start(dir, instances);
    served.start();
    const publication: Publication = { generations, newest: () => newest, floor: () => served.floor() };
    for (let i = 0; i < clientCount; i++) {
      const mode = i < settings.localClients ? 'local' : 'realtime';
      clients.push(new ChaosClient(`${mode}-${i}`, mode, front.url, keys[i]!, publication));
    }
    for (const client of clients) client.start();
    progress(`${clientCount} clients on ${front.url}, instances on ${instances.map((i) => i.port).join(' and ')}, ${redis.describe()}`);

    let publications = Promise.resolve();
    const publish = () => (publications = publications.then(publishNext));
    const publishNext = async () => {
      const g = newest + 1;
      generations.learn(g);
      await writeFeed(g);
      newest = g;
      await Promise.all(
        instances
          .filter((instance) => instance.running)
          .map((instance) =>
            fetch(`${instance.url}/admin/reload`, {
              method: 'POST',
              headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
              signal: AbortSignal.timeout(10_000),
            }).catch(() => undefined),
          ),
      );
    };
    const publishing = new AbortController();
    const publisher = (async () => {
      while (!publishing.signal.aborted) {
        await sleep(settings.publishEveryMs, undefined, { signal: publishing.signal }).catch(() => undefined);
        if (!publishing.signal.aborted) await publish();
      }
    })();

    const faults: ChaosReport['faults'] = [];
    /** Per Redis fault (by index in faults): when its recovery is counted from, and the generation written during it. */
    const recoveries = new Map<number, { from: number; generation: number }>();
    for (const [n, fault] of settings.faults.entries()) {
      await sleep(settings.faultGapMs);
      const atMs = since();
      if (fault === 'kill-instance') {
        const victim = instances[n % instances.length]!;
        await victim.kill();
        await sleep(settings.downMs);
        await victim.start();
        faults.push({ fault, atMs, detail: `${victim.name} killed (-9), listening again after ${since() - atMs} ms` });
      } else if (fault === 'restart-redis') {
        await redis.killServer();
        await sleep(settings.downMs / 2);
        // A publication while Redis is away: the instances must not serve it apart, nor lose it.
        await publish();
        await sleep(settings.downMs / 2);
        await redis.startServer();
        recoveries.set(faults.length, { from: performance.now(), generation: newest });
        faults.push({
          fault,
          atMs,
          detail: `Redis killed, generation ${newest} written meanwhile, answering again (empty) after ${since() - atMs} ms`,
        });
      } else if (fault === 'sentinel-failover' || fault === 'cluster-failover') {
        const from = performance.now();
        const promotion = redis.killPrimary(`{${ROTATING_LIST}}`);
        await sleep(FAILOVER_PUBLICATION_DELAY_MS);
        // A publication while the primary is gone: refused, or taken by the promoted replica, never lost.
        await publish();
        const generation = newest;
        const detail = await promotion;
        recoveries.set(faults.length, { from, generation });
        faults.push({ fault, atMs, detail: `${detail} after ${since() - atMs} ms, generation ${generation} written meanwhile` });
      } else {
        const victim = instances[(n + 1) % instances.length]!;
        stopStatuses.push(await victim.stop());
        await victim.start();
        faults.push({ fault, atMs, detail: `${victim.name} stopped (SIGTERM) and started again after ${since() - atMs} ms` });
      }
      progress(`${(atMs / 1000).toFixed(1)} s: ${faults.at(-1)!.detail}; generation ${newest} written`);
    }
    publishing.abort();
    await publisher;
    // No publication after the faults: the newest generation is whatever was written during them.
    const faultsEnded = performance.now();
    const last = newest;
    progress(`${(since() / 1000).toFixed(1)} s: faults over; the last generation is ${last}`);
    const convergeMs = new Map<string, number | undefined>();
    const deadline = faultsEnded + settings.convergeTimeoutMs;
    while (performance.now() < deadline) {
      for (const client of clients) {
        const { name } = client.tally;
        if (convergeMs.get(name) !== undefined) continue;
        if (client.heldGeneration() === last) convergeMs.set(name, Math.round(performance.now() - faultsEnded));
      }
      if (clients.every((client) => convergeMs.get(client.tally.name) !== undefined)) break;
      await sleep(50);
    }
    for (const client of clients) if (!convergeMs.has(client.tally.name)) convergeMs.set(client.tally.name, undefined);
    const durationMs = since();

    await Promise.all(clients.map((client) => client.stop()));
    await served.stop();
    for (const [i, { from, generation }] of recoveries) {
      const at = served.allServed(generation, from);
      faults[i]!.recoveryMs = at === undefined ? undefined : Math.round(at - from);
    }
    const answers = front.answers();
    return {
      durationMs,
      generations: last + 1,
      faults,
      ...tallyAnswers(answers),
      clients: clients.map((client) => client.tally),
      convergeMs,
      stopStatuses,
      notableLogLines: instances.flatMap((instance) =>
        instance.log
          .split('\n')
          // sbkit serve's JSON lines (docs/operations.md#logs): their message, which repeats where the line's time does not.
          .map((line) => (line.startsWith('{') ? String((JSON.parse(line) as { msg?: unknown }).msg) : line))
          .filter((line) => /fail|error|refus|cannot|unreachable|lost|wrote|restor|gone|back/i.test(line))
          .map((line) => `${instance.name}: ${line}`),
      ),
    };
  } finally {
    await Promise.all(clients.map((client) => client.stop().catch(() => undefined)));
    await served.stop();
    await front?.stop();
    stopStatuses.push(...(await Promise.all(instances.filter((instance) => instance.running).map((instance) => instance.stop()))));
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function tallyAnswers(
  answers: FrontAnswer[],
): Pick<ChaosReport, 'requests' | 'byStatus' | 'unavailable' | 'unavailableWithoutRetryAfter' | 'otherServerErrors' | 'retriedElsewhere'> {
  const byStatus = new Map<number, number>();
  const otherServerErrors: string[] = [];
  let unavailable = 0;
  let unavailableWithoutRetryAfter = 0;
  let retriedElsewhere = 0;
  for (const answer of answers) {
    byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
    if (answer.status === 503) {
      unavailable++;
      if (answer.retryAfter === undefined) unavailableWithoutRetryAfter++;
    } else if (answer.status >= 500) otherServerErrors.push(`${answer.status} ${answer.uri.slice(0, 120)}`);
    if (answer.upstreamStatuses.length > 1) retriedElsewhere++;
  }
  return { requests: answers.length, byStatus, unavailable, unavailableWithoutRetryAfter, otherServerErrors, retriedElsewhere };
}
