// The upstream budget of several proxy instances (proxy/upstream-budget.ts): one token bucket and one set
// of requester shares in Redis, each decision one Lua script on Redis's clock, so that N instances
// spend what one would. While Redis does not answer, each instance decides in its own memory (said once
// in the log, counted in sbkit_upstream_budget_fallbacks_total), and goes back to Redis when it answers.

import { Counter, Registry } from 'prom-client';
import { SEARCH_PREFIXES_PER_REQUEST } from '../../client/hash-searcher.ts';
import type { Requester } from '../guard/requester.ts';
import { MemoryUpstreamBudget, type UpstreamBucketLimits, type UpstreamBudget } from '../proxy/upstream-budget.ts';
import {
  SHARE_STEP_MS,
  SHARE_WINDOW_MS,
  shareRefusal,
  type ShareTier,
  shareTiers,
  type UpstreamShareLimits,
  withinShare,
} from '../proxy/upstream-shares.ts';
import type { WireError } from '../../wire/wire-error.ts';
import { connectRedis, DEFAULT_KEY_PREFIX, type RedisConnection, type RedisOptions } from './redis-connection.ts';
import { RedisReachability } from './redis-reachability.ts';
import { loggerOf } from '../logger.ts';

/** A decision waits at most this long for Redis, then is made in memory. */
const DEFAULT_TIMEOUT_MS = 250;
/** Beyond one token's time, what a wait may take: the script divides by a rate per ms, which may round up once more. */
const WAIT_ROUNDING_MS = 1;

/*
 * The bucket: refills at ARGV[1] requests a minute up to ARGV[2], then takes a token; returns 0 when one
 * was taken, else the ms until one can be, at most one token's time (60,000 / ARGV[1]). KEYS[1]: a HASH
 * of the tokens left and when it was refilled. What Redis holds is read within bounds, whoever wrote it (a
 * bug, a hand in Redis, an instance with a larger burst): tokens that are no number as a full bucket, as
 * when there are none, others brought within [0, burst]; a time that is none, or after Redis's clock, as
 * now. So no state makes a wait longer than one token's.
 */
const TOKEN_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local perMs = tonumber(ARGV[1]) / 60000
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(state[1]), tonumber(state[2])
if tokens == nil or tokens ~= tokens then tokens = burst end
tokens = math.max(0, math.min(burst, tokens))
if at == nil or at ~= at or at > now then at = now end
tokens = math.min(burst, tokens + (now - at) * perMs)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / perMs) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / perMs) + 60000)
return wait
`;

/*
 * The shares, as UpstreamShares.spend counts them in memory. KEYS: each tier's LIST of 'at:count', oldest
 * first, one entry per step. ARGV: the window ms, the search's count, the most one request carries, the
 * step ms, then each tier's share and whether it places the search ('1'). Returns {1, turn}, or {0, tier,
 * used, ms until room} for a refusal, which counts nothing. An entry that does not read as 'at:count', or
 * dated after Redis's clock (written by hand, or by a primary whose clock ran ahead of this one's), is
 * stale: each entry counted leaves the window within a minute, and a refusal's wait is within the window.
 */
const SHARE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window, count, fresh, stepMs = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local step = now - (now % stepMs)
local used = {}
for i = 1, #KEYS do
  local sum, first, stale = 0, nil, 0
  for j, entry in ipairs(redis.call('LRANGE', KEYS[i], 0, -1)) do
    local at, n = string.match(entry, '^(%d+):(%d+)$')
    at = tonumber(at) or 0
    if at > now then at = 0 end
    if now - at < window then
      sum = sum + tonumber(n)
      first = first or at
    elseif first == nil then
      stale = j
    end
  end
  if stale > 0 then redis.call('LTRIM', KEYS[i], stale, -1) end
  used[i] = sum
  local share = tonumber(ARGV[3 + i * 2])
  if sum + count > share and not (sum == 0 and count <= fresh) then
    return {0, i, sum, window - (now - (first or now))}
  end
end
local turn = count
for i = 1, #KEYS do
  local last = redis.call('LINDEX', KEYS[i], -1)
  local lastAt, lastCount = nil, 0
  if last then
    lastAt, lastCount = string.match(last, '^(%d+):(%d+)$')
  end
  if tonumber(lastAt) == step then
    redis.call('LSET', KEYS[i], -1, string.format('%d:%d', step, (tonumber(lastCount) or 0) + count))
  else
    redis.call('RPUSH', KEYS[i], string.format('%d:%d', step, count))
  end
  redis.call('PEXPIRE', KEYS[i], window)
  if ARGV[4 + i * 2] == '1' then turn = math.max(turn, used[i] + count) end
end
return {1, turn}
`;

export interface RedisUpstreamBudgetOptions extends RedisOptions {
  /** The bucket and the shares; give every instance the same (the last to decide sets the bucket's rate). */
  limits: UpstreamBucketLimits & UpstreamShareLimits;
  /** The budget that decides while Redis does not answer. */
  fallback: MemoryUpstreamBudget;
}

/**
 * The bucket and the shares in Redis, all keys under the hash tag {upstream} (one Cluster slot):
 *   {prefix}upstream:{upstream}:bucket          HASH tokens, at (Redis's clock, ms)
 *   {prefix}upstream:{upstream}:share:{id}      LIST of 'at:count' of the last minute by the second, oldest first
 */
export class RedisUpstreamBudget implements UpstreamBudget {
  /** sbkit_upstream_budget_fallbacks_total, for `/metrics`. */
  readonly metrics = new Registry();
  private readonly fallbacks: Counter;
  private readonly reachability: RedisReachability;

  private constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisUpstreamBudgetOptions,
  ) {
    this.reachability = new RedisReachability(loggerOf(options.log));
    this.fallbacks = new Counter({
      name: 'sbkit_upstream_budget_fallbacks_total',
      help: "Upstream budget decisions made in this instance's memory because Redis failed",
      registers: [this.metrics],
    });
    connection.client.on('error', (error: Error) => this.failed(error));
  }

  /** Connects to Redis; rejects with RedisConnectionError when it cannot (unless `watch.retry` says to start without it). */
  static async connect(options: RedisUpstreamBudgetOptions): Promise<RedisUpstreamBudget> {
    return new RedisUpstreamBudget(await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch), options);
  }

  async takeToken(): Promise<number> {
    const { requestsPerMinute, burst } = this.options.limits;
    const reply = await this.run(TOKEN_SCRIPT, [this.key('bucket')], [String(requestsPerMinute), String(burst)]);
    // A wait the script cannot answer (longer than one token's time) is Redis's failure, not a wait: taken
    // as one, a bucket set by hand to -1000 tokens held every upstream search of the instance for 33 minutes.
    const longest = Math.ceil(60_000 / requestsPerMinute) + WAIT_ROUNDING_MS;
    if (typeof reply === 'number' && Number.isInteger(reply) && reply >= 0 && reply <= longest) {
      this.answered();
      return reply;
    }
    this.fellBack(reply);
    return this.options.fallback.takeTokenNow();
  }

  async spendShare(requester: Requester, count: number): Promise<number> {
    const tiers = shareTiers(requester, count, this.options.limits);
    const reply = await this.run(
      SHARE_SCRIPT,
      tiers.map((tier) => this.key(`share:${tier.id}`)),
      [
        String(SHARE_WINDOW_MS),
        String(count),
        String(SEARCH_PREFIXES_PER_REQUEST),
        String(SHARE_STEP_MS),
        ...tiers.flatMap((t) => [String(t.share), t.places ? '1' : '0']),
      ],
    );
    const decision = shareDecision(reply, tiers, count);
    if (decision !== undefined) {
      this.answered();
      if (decision instanceof Error) throw decision;
      return decision;
    }
    this.fellBack(reply);
    return this.options.fallback.spendShareNow(requester, count);
  }

  /** True while Redis answers, so that the budget is shared; false while decisions fall back to memory. */
  get shared(): boolean {
    return this.connection.client.isReady;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /**
   * The script's reply, or the Error that kept Redis from running it (the caller then decides in memory).
   * Redis answers again once a reply is one the script gives (answered), not at any reply.
   */
  private async run(script: string, keys: string[], args: string[]): Promise<unknown> {
    if (!this.connection.client.isReady) return new Error('not connected');
    try {
      return await this.connection.client.eval(script, { keys, arguments: args });
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** A decision made in Redis: told when Redis had failed. */
  private answered(): void {
    this.reachability.answered(`upstream budget: Redis at ${this.connection.label} answers again; the instances share one budget again`);
  }

  /** A decision made in memory: counted, and told once. */
  private fellBack(reply: unknown): void {
    this.fallbacks.inc();
    this.failed(reply instanceof Error ? reply : new Error(`the script answered ${JSON.stringify(reply)?.slice(0, 40) ?? 'nothing'}`));
  }

  private failed(error: Error): void {
    this.reachability.failed(
      `upstream budget: Redis at ${this.connection.label} failed (${error.message}); this instance spends a budget of its own until it answers again`,
    );
  }

  private key(name: string): string {
    return `${this.options.keyPrefix ?? DEFAULT_KEY_PREFIX}upstream:{upstream}:${name}`;
  }
}

/**
 * The share script's reply: the search's turn, or its refusal; undefined for a reply the script cannot
 * give, which is Redis's failure (the search is then decided in memory): a turn below the search's count
 * or above the largest share that places it, a refusal naming no tier, or of a search its tier has room
 * for, or with a wait outside the window.
 */
function shareDecision(reply: unknown, tiers: readonly ShareTier[], count: number): number | WireError | undefined {
  if (!Array.isArray(reply) || !reply.every((n) => Number.isSafeInteger(n))) return undefined;
  const [granted, turnOrTier, used, retryMs] = reply as number[];
  if (granted === 1 && reply.length === 2) {
    const highest = Math.max(count, ...tiers.filter((tier) => tier.places).map((tier) => tier.share));
    return turnOrTier! >= count && turnOrTier! <= highest ? turnOrTier : undefined;
  }
  const tier = tiers[turnOrTier! - 1];
  if (granted !== 0 || reply.length !== 4 || tier === undefined || used! < 0 || withinShare(tier, used!, count)) return undefined;
  return retryMs! >= 0 && retryMs! <= SHARE_WINDOW_MS ? shareRefusal(tier, used! + count, retryMs!) : undefined;
}
