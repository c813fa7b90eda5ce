// Load control's settings (LC-1..5) and their defaults: LC's own figures, and the limits that follow them.

import { LC_RATE_RULES, type RateRules } from './hit-store.ts';
import { LC_LOAD_RULES, type LoadRules } from './load-gate.ts';

/** LC-1..5's limits (defaults: LC's figures) and who is trusted to name clients. */
export interface LoadControlSettings extends RateRules, LoadRules {
  /** Clients whose hits are remembered in memory at most (the least recently seen are forgotten first). */
  maxClients: number;
  /** Proxies whose X-Forwarded-For is believed: addresses and CIDR blocks. */
  trustedProxies: readonly string[];
  /**
   * Oblivious HTTP relays (addresses and CIDR blocks) in front of this gateway: each carries many
   * clients under one address, so only the load rules apply to what they post to /ohttp-gateway.
   */
  trustedRelays: readonly string[];
  /** Regular expressions of further User-Agents to treat as search-engine crawlers. */
  extraCrawlers: readonly string[];
  /**
   * Requests one address (an IPv6 client's /64) may make in the burst window however many User-Agents it
   * claims, browsers' included; 3 × `burstMax` by default. Raise it for large NATs.
   */
  addressBurstMax: number;
  /**
   * Requests a client with a valid API key may make in the burst window: the budget follows the key, not
   * the address or User-Agent (a proxy serving thousands of people is one key). 10 × `burstMax` by default.
   */
  keyBurstMax: number;
  /** Budgets of particular API keys, overriding `keyBurstMax`. */
  keyBudgets: Readonly<Record<string, number>>;
  /**
   * Requests of one address (IPv6: its /64) admitted and not yet answered, at most: one address must not
   * hold the places of the load (`loadMax`) with slow requests. A third of `loadMax` by default, at least 1;
   * requests with a valid API key are counted by their key's budget instead.
   */
  addressConcurrentMax: number;
  /**
   * Requests one IPv6 neighbourhood (a /56, the delegation one customer gets: up to 256 /64s) may make in
   * the burst window, however many of its /64s they come from; 2 × `addressBurstMax` by default. IPv4
   * addresses have no wider tier.
   */
  neighbourhoodBurstMax: number;
  /** Requests of one IPv6 neighbourhood (a /56) admitted and not yet answered, at most; 2 × `addressConcurrentMax` by default. */
  neighbourhoodConcurrentMax: number;
}

/**
 * The defaults; `addressBurstMax` and `keyBurstMax` follow `burstMax`, `addressConcurrentMax` follows
 * `loadMax`, and the neighbourhood's follow the address's, unless set.
 */
function defaultSettings(burstMax: number, loadMax: number, chosen: Partial<LoadControlSettings>): LoadControlSettings {
  const addressBurstMax = chosen.addressBurstMax ?? 3 * burstMax;
  const addressConcurrentMax = chosen.addressConcurrentMax ?? Math.max(1, Math.ceil(loadMax / 3));
  return {
    ...LC_RATE_RULES,
    ...LC_LOAD_RULES,
    burstMax,
    maxClients: 100_000,
    trustedProxies: [],
    trustedRelays: [],
    extraCrawlers: [],
    addressBurstMax,
    keyBurstMax: 10 * burstMax,
    keyBudgets: {},
    addressConcurrentMax,
    neighbourhoodBurstMax: 2 * addressBurstMax,
    neighbourhoodConcurrentMax: 2 * addressConcurrentMax,
  };
}

/** `chosen` over the defaults, which follow the chosen `burstMax` and `loadMax`. */
export function loadControlSettings(chosen: Partial<LoadControlSettings> = {}): LoadControlSettings {
  return { ...defaultSettings(chosen.burstMax ?? LC_RATE_RULES.burstMax, chosen.loadMax ?? LC_LOAD_RULES.loadMax, chosen), ...chosen };
}
