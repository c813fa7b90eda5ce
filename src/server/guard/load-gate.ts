// LC-5, the Connotea rules: browsers first, API and other clients next, crawlers last.
//
//   handle_request: 503 if service_paused, 503 if bot_throttle, 503 if dynamic_throttle, else serve
//   bot_throttle:   known crawler: its own last hit within 30 s, any crawler's within 2 s, load_defer
//                   assumed bot:   load_defer
//   dynamic_throttle: more than 10 requests of this ip+agent in the previous 15 s
//
// In LC-5's order: a crawler's own rules, then load_defer, then the rate rule, which records the
// request. With Redis a crawler's decision takes two scripts (its rules are checked again, atomically,
// when the request is recorded); everyone else's takes one.

import type { AgentClass } from './agent-class.ts';
import type { Budget, HitStore, RateVerdict } from './hit-store.ts';

export interface LoadRules {
  /**
   * LOAD_MAX: crawlers and bots are served at once while at most this many requests run, theirs
   * included (LC-2, LC-3: "fewer than 15 other queries").
   */
  loadMax: number;
  /** SLEEPING_MAX: a crawler or bot finding more than this many others waiting is refused at once. */
  sleepingMax: number;
  /** `delay`: how long a crawler or bot waits for the load to fall before it is looked at once more. */
  delayMs: number;
}

export const LC_LOAD_RULES: LoadRules = { loadMax: 15, sleepingMax: 20, delayMs: 1000 };

/** Why a request was refused: LC-5's reasons, and an address holding too many requests under way. */
export type RefusalReason = 'paused' | 'load' | 'address-busy' | Exclude<RateVerdict, 'admit'>;
export type Decision = { admit: true } | { admit: false; reason: RefusalReason };
const ADMIT: Decision = Object.freeze({ admit: true });

/** Waits `ms`; tests pass a fake. */
export type Sleep = (ms: number) => Promise<void>;

export class LoadGate {
  private running = 0;
  private sleeping = 0;

  constructor(
    private readonly rules: LoadRules,
    private readonly hits: HitStore,
    private readonly sleep: Sleep,
  ) {}

  /** Requests admitted and not yet finished (`load`). */
  get load(): number {
    return this.running;
  }

  /** Requests waiting in load_defer (`sleeping_count`). */
  get waiting(): number {
    return this.sleeping;
  }

  /**
   * The decision of {@link decide} when it can be made at once, without waiting for anything: the
   * client is no crawler (whose rules come before load_defer's wait), its place in the load is free
   * (no load_defer), and the hit store answers without I/O. Otherwise undefined, having changed
   * nothing: {@link decide} then makes the decision. Most requests of a server not under load are
   * decided here, without a promise.
   */
  decideNow(client: string, agent: AgentClass, paused: boolean, budgets?: readonly Budget[]): Decision | undefined {
    if (paused) return { admit: false, reason: 'paused' };
    if (agent.kind === 'crawler' || this.hits.hitNow === undefined) return undefined;
    const placeHeld = agent.kind !== 'browser';
    if (placeHeld && !this.takePlace()) return undefined;
    const verdict = budgets?.length === 0 ? 'admit' : this.hits.hitNow(client, false, budgets);
    return this.concluded(verdict, placeHeld);
  }

  /**
   * Decides on one request of `client` (address and User-Agent key). An admitted request counts in
   * the load until `finished()` is called for it. `gone` tells whether the client has left meanwhile;
   * `budgets` are the hit stacks the request counts in (the client's own by default), and none skips the
   * rate rule (a relay's requests carry many clients under one address).
   */
  async decide(
    client: string,
    agent: AgentClass,
    paused: boolean,
    gone: () => boolean = () => false,
    budgets?: readonly Budget[],
  ): Promise<Decision> {
    if (paused) return { admit: false, reason: 'paused' };
    if (agent.kind === 'crawler') {
      const early = await this.hits.crawlerCheck(client);
      if (early !== 'admit') return { admit: false, reason: early };
    }
    // A crawler or bot that load_defer lets through holds its place in the load from then on, so that
    // requests deciding at the same time cannot all slip under LOAD_MAX.
    const placeHeld = agent.kind !== 'browser';
    if (placeHeld && !(await this.loadDefer(gone))) return { admit: false, reason: 'load' };
    const verdict = budgets?.length === 0 ? 'admit' : await this.hits.hit(client, agent.kind === 'crawler', budgets);
    return this.concluded(verdict, placeHeld);
  }

  /** The decision from the rate rule's verdict; a place held for load_defer is given back on refusal, a browser's taken on admission. */
  private concluded(verdict: RateVerdict, placeHeld: boolean): Decision {
    if (verdict !== 'admit') {
      if (placeHeld) this.running--;
      return { admit: false, reason: verdict };
    }
    if (!placeHeld) this.running++;
    return ADMIT;
  }

  /** An admitted request has been answered (or its client went away). */
  finished(): void {
    this.running--;
  }

  /**
   * LC-5 load_defer: true (and a place in the load taken) when the request may go on. A client that
   * went away while it waited takes no place.
   */
  private async loadDefer(gone: () => boolean): Promise<boolean> {
    if (this.takePlace()) return true;
    if (this.sleeping > this.rules.sleepingMax) return false;
    this.sleeping++;
    try {
      await this.sleep(this.rules.delayMs);
    } finally {
      this.sleeping--;
    }
    return !gone() && this.takePlace();
  }

  /** `load <= LOAD_MAX`, where load counts this request too, and if so the place is taken. */
  private takePlace(): boolean {
    if (this.running + 1 > this.rules.loadMax) return false;
    this.running++;
    return true;
  }
}
