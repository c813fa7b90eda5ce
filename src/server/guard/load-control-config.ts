// The `loadControl` section of the server configuration (docs/configuration.md): LC-5's settings in
// the units people write them in, checked like every other field.

import { ConfigError } from '../config/config-error.ts';
import {
  elementOf,
  expectArray,
  expectKnownFields,
  expectNumber,
  expectObject,
  expectString,
  fieldOf,
  type JsonObject,
} from '../config/config-fields.ts';
import { TrustedProxies } from './client-address.ts';
import type { LoadControlSettings } from './load-control-settings.ts';

export interface LoadControlConfig {
  /** False: no gate at all (a server that only its owner uses). */
  enabled: boolean;
  settings: Partial<LoadControlSettings>;
}

export const DEFAULT_LOAD_CONTROL_CONFIG: LoadControlConfig = { enabled: true, settings: {} };

const FIELDS = [
  'enabled',
  'maxConcurrent',
  'maxWaiting',
  'waitMilliseconds',
  'crawlerIntervalSeconds',
  'anyCrawlerIntervalSeconds',
  'burstWindowSeconds',
  'burstMax',
  'maxClients',
  'trustedProxies',
  'trustedRelays',
  'crawlerPatterns',
  'addressBurstMax',
  'keyBurstMax',
  'keyBudgets',
  'maxConcurrentPerAddress',
  'neighbourhoodBurstMax',
  'maxConcurrentPerNeighbourhood',
] as const;

export function parseLoadControlConfig(value: unknown, field: string): LoadControlConfig {
  if (value === undefined) return DEFAULT_LOAD_CONTROL_CONFIG;
  const section = expectObject(value, field);
  expectKnownFields(section, FIELDS, field);
  const enabled = section.enabled === undefined ? true : expectBoolean(section.enabled, fieldOf(field, 'enabled'));
  const settings: Partial<LoadControlSettings> = {};
  const number = (key: (typeof FIELDS)[number], min: number, max: number, scale = 1): number | undefined =>
    section[key] === undefined ? undefined : expectNumber(section[key], fieldOf(field, key), { min, max, integer: true }) * scale;
  const assign = <K extends keyof LoadControlSettings>(key: K, v: LoadControlSettings[K] | undefined) => {
    if (v !== undefined) settings[key] = v;
  };
  assign('loadMax', number('maxConcurrent', 1, 100_000));
  assign('sleepingMax', number('maxWaiting', 0, 100_000));
  assign('delayMs', number('waitMilliseconds', 0, 60_000));
  assign('crawlerIntervalMs', number('crawlerIntervalSeconds', 1, 86_400, 1000));
  assign('anyCrawlerIntervalMs', number('anyCrawlerIntervalSeconds', 1, 86_400, 1000));
  assign('burstWindowMs', number('burstWindowSeconds', 1, 86_400, 1000));
  assign('burstMax', number('burstMax', 0, 10_000));
  assign('maxClients', number('maxClients', 2, 10_000_000));
  assign('addressBurstMax', number('addressBurstMax', 0, 1_000_000));
  assign('keyBurstMax', number('keyBurstMax', 0, 1_000_000));
  assign('addressConcurrentMax', number('maxConcurrentPerAddress', 1, 100_000));
  assign('neighbourhoodBurstMax', number('neighbourhoodBurstMax', 0, 1_000_000));
  assign('neighbourhoodConcurrentMax', number('maxConcurrentPerNeighbourhood', 1, 100_000));
  if (section.keyBudgets !== undefined) {
    const at = fieldOf(field, 'keyBudgets');
    const budgets = expectObject(section.keyBudgets, at);
    settings.keyBudgets = Object.fromEntries(
      // Errors name a key by its start only: keys are secrets, and messages end up in logs.
      Object.entries(budgets).map(([key, value]) => [
        key,
        expectNumber(value, `${at}["${keyStart(key)}"]`, { min: 0, max: 1_000_000, integer: true }),
      ]),
    );
  }
  assign('trustedProxies', addresses(section, 'trustedProxies', field, 'trusted proxy'));
  assign('trustedRelays', addresses(section, 'trustedRelays', field, 'trusted relay'));
  if (section.crawlerPatterns !== undefined) {
    const patterns = expectArray(section.crawlerPatterns, fieldOf(field, 'crawlerPatterns')).map((entry, i) => {
      const at = elementOf(fieldOf(field, 'crawlerPatterns'), i);
      const pattern = expectString(entry, at);
      try {
        new RegExp(pattern, 'i');
      } catch (error) {
        throw new ConfigError(at, `is not a regular expression: ${(error as Error).message}`);
      }
      return pattern;
    });
    settings.extraCrawlers = patterns;
  }
  return { enabled, settings };
}

/** A list of addresses and CIDR blocks, checked as the server will read it. */
function addresses(section: JsonObject, key: 'trustedProxies' | 'trustedRelays', field: string, what: string): string[] | undefined {
  if (section[key] === undefined) return undefined;
  const at = fieldOf(field, key);
  const entries = expectArray(section[key], at).map((entry, i) => expectString(entry, elementOf(at, i)));
  try {
    new TrustedProxies(entries, what);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(at, error.problem);
  }
  return entries;
}

/** The first characters of an API key, enough for its owner to recognise it. */
export function keyStart(key: string): string {
  return `${key.slice(0, 4)}…`;
}

function expectBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new ConfigError(field, 'must be true or false');
  return value;
}
