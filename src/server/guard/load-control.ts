// The load-control gate of the server (LC-1..5), put in front of every route by fastify hooks
// (request-gate.ts: where in a request it decides): who asks (request-clients.ts), the decision
// (load-gate.ts over a hit store in memory or Redis), the 503 (refusal.ts), and metrics.

import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry } from 'prom-client';
import { type MonotonicClock, sleep, systemClock } from '../../time/clock.ts';
import { type AgentClass, AgentClassifier } from './agent-class.ts';
import { clientAddress, TrustedProxies } from './client-address.ts';
import { type Budget, type HitStore, MemoryHitStore } from './hit-store.ts';
import { type LoadControlSettings, loadControlSettings } from './load-control-settings.ts';
import { BoundedMap } from '../../store/bounded-map.ts';
import { type AskedRequest, RequestClients } from './request-clients.ts';
import { acceptedKey, keyId } from './requester.ts';
import { type Decision, LoadGate, type RefusalReason } from './load-gate.ts';
import { RedisHitStore } from '../redis/redis-hit-store.ts';
import type { RedisWatch } from '../redis/redis-connection.ts';
import type { RedisTarget } from '../redis/redis-address.ts';
import { retryAfterSeconds } from './refusal.ts';
import { type AdminCheck, type GateDecisions, type Outcome, registerGate, type Slot } from './request-gate.ts';
import type { LogSink } from '../logger.ts';

export interface LoadControlOptions {
  settings?: Partial<LoadControlSettings>;
  /** Share the limits with other instances through this Redis (`watch`: start without it, see redis-connection.ts). */
  redis?: { url: RedisTarget; keyPrefix?: string; watch?: RedisWatch };
  /** Where to say that Redis failed, or answers again. */
  log?: LogSink;
  /** The memory store's windows (on its monotonic reading) and load_defer's waits; the system's by default. */
  clock?: MonotonicClock;
}

const GATEWAY_PATH = /^\/ohttp-gateway(?:\?|$)/;

/** The class of an Oblivious HTTP relay's requests: a program's, to which only the load rules apply. */
const RELAYED: AgentClass = { kind: 'bot' };
function newSlot(): Slot {
  return { underWay: 0 };
}

/** IPv6 neighbourhoods whose requests under way are counted at once, as addresses are. */
const RECENT_NEIGHBOURHOODS_KEPT = 4096;

/** Addresses whose requests under way are counted at once; a newcomer beyond them pushes out the oldest. */
const RECENT_ADDRESSES_KEPT = 4096;

/** Who asks, as the gate sees it: agent class, client key, the budgets the request counts in, and its address's slot. */
interface Asking {
  agent: AgentClass;
  client: string;
  budgets: readonly Budget[];
  /** The address's requests under way, which this one counts in; none for a request budgeted by its API key. */
  slot: Slot | undefined;
}

/** What load control has done since the server started, for the status page. */
export interface LoadControlSummary {
  load: number;
  waiting: number;
  /** True while the limits are shared through Redis. */
  shared: boolean;
  admitted: Record<string, number>;
  /** By `class/reason`, e.g. `bot/rate`. */
  refused: Record<string, number>;
}

/**
 * LC-1..5: browsers first, API clients next, crawlers last, HTTP 503 with `Retry-After` under load or
 * for a client over its rate. Give it to {@link createServer} as `loadControl`; with `redis`, instances
 * share the limits.
 */
export class LoadControl implements GateDecisions {
  /** Prometheus metrics of what it admitted and refused, served at `/metrics`. */
  readonly metrics = new Registry();
  /** @internal Requests whose body is still arriving (request-gate.ts counts them). */
  receiving = 0;
  private readonly admitted: Counter<'class'>;
  private readonly admittedByClass: Record<AgentClass['kind'], number> = { browser: 0, bot: 0, crawler: 0 };
  private readonly refused: Counter<'class' | 'reason'>;
  private readonly crawlers: Counter<'crawler' | 'outcome'>;
  /**
   * Each recent address's requests under way. An address forgotten while its requests are under way
   * gets a new slot: its next requests count from zero, those under way are counted out of the old one.
   */
  private readonly slots = new BoundedMap<string, Slot>(RECENT_ADDRESSES_KEPT);
  /** Each recent IPv6 neighbourhood's (/56's) requests under way, which its addresses' slots point at. */
  private readonly neighbourhoods = new BoundedMap<string, Slot>(RECENT_NEIGHBOURHOODS_KEPT);
  /** Who each request comes from. */
  private readonly clients: RequestClients;

  private constructor(
    private readonly settings: LoadControlSettings,
    classifier: AgentClassifier,
    /**
     * Proxies whose X-Forwarded-For is believed.
     *
     * @internal
     */
    readonly trusted: TrustedProxies,
    /**
     * Oblivious HTTP relays whose requests carry many clients.
     *
     * @internal
     */
    readonly relays: TrustedProxies,
    /** @internal */
    readonly gate: LoadGate,
    private readonly redisStore: RedisHitStore | undefined,
    fallbacks: Counter,
  ) {
    this.clients = new RequestClients(trusted, classifier, (client, address, neighbourhood) =>
      this.budgets(client, address, neighbourhood),
    );
    // Counted in plain numbers per request and handed to the metric when it is read: labelled counting
    // costs a request of the busiest route more than the rest of the decision.
    const admittedByClass = this.admittedByClass;
    this.admitted = new Counter({
      name: 'sbkit_requests_admitted_total',
      help: 'Requests load control let through, by client class',
      labelNames: ['class'],
      registers: [this.metrics],
      collect(this: Counter<'class'>) {
        this.reset();
        for (const [kind, count] of Object.entries(admittedByClass)) if (count > 0) this.inc({ class: kind }, count);
      },
    });
    this.refused = new Counter({
      name: 'sbkit_requests_refused_total',
      help: 'Requests load control answered with 503, by client class and reason',
      labelNames: ['class', 'reason'],
      registers: [this.metrics],
    });
    // Labelled by the crawler-user-agents pattern that matched: as many series as patterns, at most.
    this.crawlers = new Counter({
      name: 'sbkit_crawler_requests_total',
      help: 'Requests of known crawlers, by the pattern that named the crawler and what load control did',
      labelNames: ['crawler', 'outcome'],
      registers: [this.metrics],
    });
    this.metrics.registerMetric(fallbacks);
    // Gauges are read at scrape time rather than kept up to date per request.
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [this.metrics],
        collect(this: Gauge) {
          this.set(read());
        },
      });
    gauge('sbkit_requests_in_progress', 'Requests admitted and not yet answered (LC-5 load)', () => gate.load);
    gauge(
      'sbkit_requests_receiving',
      'Requests whose body is still arriving: they hold no place in the load until it is in',
      () => this.receiving,
    );
    gauge('sbkit_requests_waiting', 'Crawler and bot requests waiting for the load to fall (LC-5 sleeping_count)', () => gate.waiting);
    gauge('sbkit_load_control_shared', "1 while limits are shared through Redis, 0 while kept in this instance's memory", () =>
      redisStore?.shared === true ? 1 : 0,
    );
  }

  /**
   * Builds the gate; with `redis`, connects first.
   *
   * @throws RedisConnectionError when Redis cannot be reached; RangeError for a trusted proxy or relay
   *   that is neither an address nor a CIDR block.
   */
  static async create(options: LoadControlOptions = {}): Promise<LoadControl> {
    const settings = loadControlSettings(options.settings);
    const clock = options.clock ?? systemClock;
    const memory = new MemoryHitStore(settings, settings.maxClients, () => clock.monotonic());
    const fallbacks = new Counter({
      name: 'sbkit_load_control_fallbacks_total',
      help: 'Load-control decisions made in memory because Redis failed',
      registers: [],
    });
    let store: HitStore = memory;
    let redisStore: RedisHitStore | undefined;
    if (options.redis !== undefined) {
      redisStore = await RedisHitStore.connect({
        ...options.redis,
        rules: settings,
        fallback: memory,
        log: options.log,
        onFallback: () => fallbacks.inc(),
      });
      store = redisStore;
    }
    return new LoadControl(
      settings,
      new AgentClassifier(settings.extraCrawlers),
      new TrustedProxies(settings.trustedProxies),
      new TrustedProxies(settings.trustedRelays, 'trusted relay'),
      new LoadGate(settings, store, (ms) => sleep(clock, ms)),
      redisStore,
      fallbacks,
    );
  }

  /**
   * Puts the gate in front of every route of `app`; `paused` is the operator's switch (LC-5
   * service_paused); `admin` checks the admin token of `/admin/` requests, which pass by once it holds
   * (none: no admin endpoints here); `apiKeys` are the keys the server accepts, whose clients are
   * budgeted by key.
   *
   * @internal
   */
  register(app: FastifyInstance, paused: () => boolean, admin: AdminCheck | undefined, apiKeys: ReadonlySet<string> = new Set()): void {
    registerGate(app, this, paused, admin, apiKeys);
  }

  /** @internal */
  retryAfterSeconds(reason: RefusalReason): number {
    return retryAfterSeconds(reason, this.settings);
  }

  /** Closes the Redis connection, if any. */
  async close(): Promise<void> {
    await this.redisStore?.close();
  }

  /**
   * The decision on one request, as LC-5 makes it, from what arrives before the body: its URL, its
   * headers and the peer's address. An admitted request counts in the load, and in its address's
   * requests under way (`slot`), until `finished(slot)`.
   *
   * @internal
   */
  async decide(request: AskedRequest, paused: boolean, gone?: () => boolean, apiKeys: ReadonlySet<string> = new Set()): Promise<Outcome> {
    const asking = this.identify(request, paused, apiKeys);
    if ('decision' in asking) return asking;
    return this.settled(asking, await this.gate.decide(asking.client, asking.agent, paused, gone, asking.budgets));
  }

  /**
   * {@link decide}'s outcome when the gate can decide at once (load-gate.ts decideNow), without a
   * promise; undefined, having counted nothing, when the decision must wait: then {@link decide}.
   *
   * @internal
   */
  decideNow(request: AskedRequest, paused: boolean, apiKeys: ReadonlySet<string>): Outcome | undefined {
    const asking = this.identify(request, paused, apiKeys);
    if ('decision' in asking) return asking;
    const decision = this.gate.decideNow(asking.client, asking.agent, paused, asking.budgets);
    return decision === undefined ? undefined : this.settled(asking, decision);
  }

  /**
   * Who asks and which budgets the request counts in; or, for an address with too many requests under
   * way, the refusal (counted).
   */
  private identify(request: AskedRequest, paused: boolean, apiKeys: ReadonlySet<string>): Asking | Outcome {
    // An OHTTP gateway's requests from a trusted relay carry many clients under one address: only the
    // load rules apply, as to any program (the relay enforces the per-client rules). Anyone else who
    // posts to the gateway directly is one client like any other. The relay's address is found as any
    // client's is, so a relay behind this server's own load balancer is recognised too.
    if (GATEWAY_PATH.test(request.url) && this.relays.has(clientAddress(request.peer, request.headers['x-forwarded-for'], this.trusted))) {
      return { agent: RELAYED, client: '', budgets: [], slot: undefined };
    }
    const { agent, address, neighbourhood, client, budgets } = this.clients.of(request);
    const key = acceptedKey(request, apiKeys);
    const slot = key === undefined ? this.slots.getOrCompute(address, () => this.newAddressSlot(neighbourhood)) : undefined;
    if (slot !== undefined && !paused && this.busy(slot)) {
      const decision: Decision = { admit: false, reason: 'address-busy' };
      this.counted(decision, agent);
      return { decision, agent };
    }
    return { agent, client, budgets: key === undefined ? budgets : this.keyBudget(key), slot };
  }

  /** An address's slot, pointing at its neighbourhood's when it has one (IPv6). */
  private newAddressSlot(neighbourhood: string | undefined): Slot {
    return {
      underWay: 0,
      neighbourhood: neighbourhood === undefined ? undefined : this.neighbourhoods.getOrCompute(neighbourhood, newSlot),
    };
  }

  /** Whether the address, or its neighbourhood, has as many requests under way as it may. */
  private busy(slot: Slot): boolean {
    const { neighbourhood } = slot;
    return (
      slot.underWay >= this.settings.addressConcurrentMax ||
      (neighbourhood !== undefined && neighbourhood.underWay >= this.settings.neighbourhoodConcurrentMax)
    );
  }

  /** The outcome of the gate's decision: counted, and an admitted request's place among its address's taken. */
  private settled(asking: Asking, decision: Decision): Outcome {
    const { agent, slot } = asking;
    this.counted(decision, agent);
    if (!decision.admit || slot === undefined) return { decision, agent };
    slot.underWay++;
    if (slot.neighbourhood !== undefined) slot.neighbourhood.underWay++;
    return { decision, agent, slot };
  }

  /**
   * An admitted request has been answered; `slot` is what `decide` gave for it.
   *
   * @internal
   */
  finished(slot?: Slot): void {
    this.gate.finished();
    if (slot === undefined) return;
    if (slot.underWay > 0) slot.underWay--;
    if (slot.neighbourhood !== undefined && slot.neighbourhood.underWay > 0) slot.neighbourhood.underWay--;
  }

  /**
   * What load control has done, for the status page. The counts come from the metrics' own counters,
   * so the two cannot disagree.
   *
   * @internal
   */
  async summary(): Promise<LoadControlSummary> {
    const admitted: Record<string, number> = {};
    for (const { labels, value } of (await this.admitted.get()).values) admitted[String(labels.class)] = value;
    const refused: Record<string, number> = {};
    for (const { labels, value } of (await this.refused.get()).values) refused[`${labels.class}/${labels.reason}`] = value;
    return { load: this.gate.load, waiting: this.gate.waiting, shared: this.redisStore?.shared === true, admitted, refused };
  }

  /**
   * The hit stacks a request counts in. A valid API key: the key's budget alone, wherever its requests
   * come from. Otherwise the client's own (address and User-Agent: people behind one NAT differ by
   * agent) and its address's, which caps what one address gets however many User-Agents it claims; an
   * IPv6 client's neighbourhood's too, which caps what one delegation gets however many /64s it uses. A
   * key only counts when the server accepts it: anyone can make keys up.
   */
  private budgets(client: string, address: string, neighbourhood: string | undefined): Budget[] {
    const budgets: Budget[] = [
      { key: client, max: this.settings.burstMax, refusal: 'rate' },
      { key: `address:${address}`, max: this.settings.addressBurstMax, refusal: 'address-rate' },
    ];
    if (neighbourhood !== undefined) {
      budgets.push({ key: `neighbourhood:${neighbourhood}`, max: this.settings.neighbourhoodBurstMax, refusal: 'address-rate' });
    }
    return budgets;
  }

  /** The budget of a request with an accepted API key: the key's alone, wherever its requests come from. */
  private keyBudget(key: string): Budget[] {
    const max = Object.hasOwn(this.settings.keyBudgets, key) ? this.settings.keyBudgets[key]! : this.settings.keyBurstMax;
    return [{ key: keyId(key), max, refusal: 'rate' }];
  }

  private counted(decision: Decision, agent: AgentClass): void {
    if (decision.admit) this.admittedByClass[agent.kind]++;
    else this.refused.inc({ class: agent.kind, reason: decision.reason });
    if (agent.kind === 'crawler') this.crawlers.inc({ crawler: agent.crawler, outcome: decision.admit ? 'admitted' : decision.reason });
  }
}
