// The `loadControl` section of the server configuration (docs/configuration.md): LC-5's settings in
// the units people write them in, checked like every other field.

import { ConfigError } from '../config/config-error.ts';
import {
  expectArrayOf,
  expectKnownFields,
  expectNumber,
  expectObject,
  expectString,
  fieldOf,
  type JsonObject,
  optionalBoolean,
  type WholeNumberField,
  wholeNumberFieldNames,
  wholeNumberSettings,
} from '../config/config-fields.ts';
import { TrustedProxies } from './client-address.ts';
import type { LoadControlSettings } from './load-control-settings.ts';

export interface LoadControlConfig {
  /** False: no gate at all (a server that only its owner uses). */
  enabled: boolean;
  settings: Partial<LoadControlSettings>;
}

export const DEFAULT_LOAD_CONTROL_CONFIG: LoadControlConfig = { enabled: true, settings: {} };

/** LC-5's limits: each setting's bounds, and its name and unit in the file where they are not its own. */
const NUMBER_FIELDS = {
  loadMax: { name: 'maxConcurrent', min: 1, max: 100_000 },
  sleepingMax: { name: 'maxWaiting', min: 0, max: 100_000 },
  delayMs: { name: 'waitMilliseconds', min: 0, max: 60_000 },
  crawlerIntervalMs: { name: 'crawlerIntervalSeconds', min: 1, max: 86_400, scale: 1000 },
  anyCrawlerIntervalMs: { name: 'anyCrawlerIntervalSeconds', min: 1, max: 86_400, scale: 1000 },
  burstWindowMs: { name: 'burstWindowSeconds', min: 1, max: 86_400, scale: 1000 },
  burstMax: { min: 0, max: 10_000 },
  maxClients: { min: 2, max: 10_000_000 },
  addressBurstMax: { min: 0, max: 1_000_000 },
  keyBurstMax: { min: 0, max: 1_000_000 },
  addressConcurrentMax: { name: 'maxConcurrentPerAddress', min: 1, max: 100_000 },
  neighbourhoodBurstMax: { min: 0, max: 1_000_000 },
  neighbourhoodConcurrentMax: { name: 'maxConcurrentPerNeighbourhood', min: 1, max: 100_000 },
} satisfies { [Setting in keyof LoadControlSettings]?: WholeNumberField };

const FIELDS = ['enabled', ...wholeNumberFieldNames(NUMBER_FIELDS), 'keyBudgets', 'trustedProxies', 'trustedRelays', 'crawlerPatterns'];

export function parseLoadControlConfig(value: unknown, field: string): LoadControlConfig {
  if (value === undefined) return DEFAULT_LOAD_CONTROL_CONFIG;
  const section = expectObject(value, field);
  expectKnownFields(section, FIELDS, field);
  const enabled = optionalBoolean(section, 'enabled', field) ?? true;
  const settings: Partial<LoadControlSettings> = wholeNumberSettings(section, field, NUMBER_FIELDS);
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
  const trustedProxies = addresses(section, 'trustedProxies', field, 'trusted proxy');
  if (trustedProxies !== undefined) settings.trustedProxies = trustedProxies;
  const trustedRelays = addresses(section, 'trustedRelays', field, 'trusted relay');
  if (trustedRelays !== undefined) settings.trustedRelays = trustedRelays;
  if (section.crawlerPatterns !== undefined) {
    settings.extraCrawlers = expectArrayOf(section.crawlerPatterns, fieldOf(field, 'crawlerPatterns'), (entry, at) => {
      const pattern = expectString(entry, at);
      try {
        new RegExp(pattern, 'i');
      } catch (error) {
        throw new ConfigError(at, `is not a regular expression: ${(error as Error).message}`);
      }
      return pattern;
    });
  }
  return { enabled, settings };
}

/** A list of addresses and CIDR blocks, checked as the server will read it. */
function addresses(section: JsonObject, key: 'trustedProxies' | 'trustedRelays', field: string, what: string): string[] | undefined {
  if (section[key] === undefined) return undefined;
  const at = fieldOf(field, key);
  const entries = expectArrayOf(section[key], at, expectString);
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
