// The hit store of several instances: one Lua script per decision, on Redis's clock, so that a client
// has one budget however many instances it reaches. While Redis is away, decisions fall back to this
// instance's memory (said once, counted), and go back to Redis as soon as it answers.

import { connectRedis, DEFAULT_KEY_PREFIX, type RedisConnection, type RedisOptions, type RedisWatch } from './redis-connection.ts';
import { RedisReachability } from './redis-reachability.ts';
import { type Budget, type HitStore, MemoryHitStore, ownBudget, type RateRules, type RateVerdict } from '../guard/hit-store.ts';
import { loggerOf } from '../logger.ts';

/*
 * The steps of HitStore.hit, atomically (a script runs alone in Redis), on Redis's clock (TIME).
 *   KEYS: the client's last crawler admission, any crawler's last admission (both strings that expire
 *         with their interval), then the hit stack of each budget (a LIST, newest first)
 *   ARGV: crawler ('1' or '0'), crawler interval ms, any-crawler interval ms, burst window ms, check
 *         only ('1': the crawler rules alone, nothing recorded), then each budget's max and refusal
 * The admission times are compared as the memory store compares them; the keys' expiry only cleans up.
 * The keys share the hash tag {guard}, so the script touches one cluster slot.
 */
const HIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local crawler = ARGV[1] == '1'
local crawlerMs, anyCrawlerMs = tonumber(ARGV[2]), tonumber(ARGV[3])
if crawler then
  local own = tonumber(redis.call('GET', KEYS[1]))
  if own and now - own < crawlerMs then return 'crawler-recent' end
  local any = tonumber(redis.call('GET', KEYS[2]))
  if any and now - any < anyCrawlerMs then return 'crawlers-busy' end
end
if ARGV[5] == '1' then return 'admit' end
local window = tonumber(ARGV[4])
local verdict = 'admit'
for i = 3, #KEYS do
  local max = tonumber(ARGV[6 + (i - 3) * 2])
  local oldest = redis.call('LINDEX', KEYS[i], max)
  redis.call('LPUSH', KEYS[i], now)
  redis.call('LTRIM', KEYS[i], 0, max)
  redis.call('PEXPIRE', KEYS[i], window)
  if verdict == 'admit' and oldest and now - tonumber(oldest) < window then verdict = ARGV[7 + (i - 3) * 2] end
end
if verdict ~= 'admit' then return verdict end
if crawler then
  if crawlerMs > 0 then redis.call('SET', KEYS[1], now, 'PX', crawlerMs) end
  if anyCrawlerMs > 0 then redis.call('SET', KEYS[2], now, 'PX', anyCrawlerMs) end
end
return 'admit'
`;

const VERDICTS: ReadonlySet<string> = new Set(['admit', 'crawler-recent', 'crawlers-busy', 'rate', 'address-rate']);

export interface RedisHitStoreOptions extends RedisOptions {
  /** Bound on connecting and on each decision's script: past it, the decision is made in memory. */
  timeoutMs?: number;
  rules: RateRules;
  /** The memory store that decides while Redis is away. */
  fallback: MemoryHitStore;
  /** Called for every decision made in memory because Redis failed (metrics). */
  onFallback?: () => void;
  /** Start without Redis when it does not answer (deciding in memory), and report to the service's metrics. */
  watch?: RedisWatch;
}

export class RedisHitStore implements HitStore {
  /** Whether decisions are made in Redis or, while it fails, in memory. */
  private readonly reachability: RedisReachability;

  private constructor(
    private readonly connection: RedisConnection,
    private readonly options: RedisHitStoreOptions,
  ) {
    this.reachability = new RedisReachability(loggerOf(options.log));
    connection.client.on('error', (error: Error) => this.failed(error));
  }

  /** Connects to Redis; rejects with RedisConnectionError when it cannot (unless `watch.retry` says to start without it). */
  static async connect(options: RedisHitStoreOptions): Promise<RedisHitStore> {
    return new RedisHitStore(await connectRedis(options.url, options.timeoutMs ?? 250, options.watch), options);
  }

  async hit(client: string, crawler: boolean, budgets: readonly Budget[] = ownBudget(client, this.options.rules)): Promise<RateVerdict> {
    return (await this.run(client, crawler, budgets)) ?? this.options.fallback.hitNow(client, crawler, budgets);
  }

  async crawlerCheck(client: string): Promise<RateVerdict> {
    return (await this.run(client, true, undefined)) ?? this.options.fallback.crawlerCheckNow(client);
  }

  /**
   * The script's verdict, or undefined when Redis cannot give one (the caller decides in memory).
   * Without budgets, the crawler rules alone are checked.
   */
  private async run(client: string, crawler: boolean, budgets: readonly Budget[] | undefined): Promise<RateVerdict | undefined> {
    if (this.connection.client.isReady) {
      try {
        const verdict = await this.connection.client.eval(HIT_SCRIPT, {
          keys: this.keys(client, budgets ?? []),
          arguments: [...this.arguments(crawler, budgets === undefined), ...(budgets ?? []).flatMap((b) => [String(b.max), b.refusal])],
        });
        const text = Buffer.isBuffer(verdict) ? verdict.toString('latin1') : (JSON.stringify(verdict) ?? 'nothing');
        if (VERDICTS.has(text)) {
          this.answered();
          return text as RateVerdict;
        }
        this.failed(new Error(`the load-control script answered ${JSON.stringify(text.slice(0, 40))}`));
      } catch (error) {
        this.failed(error);
      }
    } else {
      this.failed(new Error('not connected'));
    }
    this.options.onFallback?.();
    return undefined;
  }

  /** True while Redis is connected, so that decisions are made there; false while they fall back to memory. */
  get shared(): boolean {
    return this.connection.client.isReady;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private keys(client: string, budgets: readonly Budget[]): string[] {
    const prefix = `${this.options.keyPrefix ?? DEFAULT_KEY_PREFIX}guard:{guard}:`;
    return [`${prefix}crawler:${client}`, `${prefix}any-crawler`, ...budgets.map((budget) => `${prefix}hits:${budget.key}`)];
  }

  private arguments(crawler: boolean, checkOnly: boolean): string[] {
    const { rules } = this.options;
    return [
      crawler ? '1' : '0',
      String(rules.crawlerIntervalMs),
      String(rules.anyCrawlerIntervalMs),
      String(rules.burstWindowMs),
      checkOnly ? '1' : '0',
    ];
  }

  private answered(): void {
    this.reachability.answered(`load control: Redis at ${this.connection.label} answers again; limits are shared again`);
  }

  private failed(error: unknown): void {
    this.reachability.failed(
      `load control: Redis at ${this.connection.label} failed (${error instanceof Error ? error.message : String(error)}); limits are kept in this instance's memory until it answers again`,
    );
  }
}
