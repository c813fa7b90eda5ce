// The client's options as a JavaScript caller may pass them: no type checker stands between
// `{ srever: … }`, `{ mode: 'nope' }` or `{ timeoutMs: -5 }` and the client, and each would otherwise
// be ignored or misbehave far from its cause. Every option is checked once, by name, type and range,
// and the first that is wrong is refused with a ClientOptionError naming it. `undefined` is the default.

import { ClientOptionError } from './client-errors.ts';
import { MAX_PREFIXES_PER_SEARCH } from './check.ts';

/** What is wrong with `value`, given as option `name`; undefined when nothing is. */
type Rule = (value: unknown, name: string) => string | undefined;
/** The rule of an option that is an object of options: each member by its own rule, and no others. */
interface ObjectRule {
  members: OptionRules;
}

/** Options by name, each with its rule. */
export type OptionRules = Readonly<Record<string, Rule | ObjectRule>>;

/** Node's timers take at most 2^31 - 1 ms; a longer timeout would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The size constraints are int32 fields of the request (docs/api.md). */
const MAX_INT32 = 2 ** 31 - 1;
const DAY_MS = 24 * 60 * 60_000;

/** A value as a message shows it: strings quoted, objects by kind, never a whole secret-bearing object. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

const wrong = (name: string, value: unknown, expected: string) => `${name} is ${shown(value)}; it must be ${expected}`;

const clockOf: Rule = (value, name) =>
  typeof value === 'object' &&
  value !== null &&
  ['now', 'setTimeout', 'clearTimeout'].every((member) => typeof (value as Record<string, unknown>)[member] === 'function')
    ? undefined
    : wrong(name, value, 'a clock: an object with now(), setTimeout() and clearTimeout()');

const text: Rule = (value, name) => (typeof value === 'string' ? undefined : wrong(name, value, 'a string'));
export const nonEmptyText: Rule = (value, name) =>
  typeof value === 'string' && value !== '' ? undefined : wrong(name, value, 'a string that is not empty');
const flag: Rule = (value, name) => (typeof value === 'boolean' ? undefined : wrong(name, value, 'true or false'));
const callable: Rule = (value, name) => (typeof value === 'function' ? undefined : wrong(name, value, 'a function'));

export function oneOf(...choices: string[]): Rule {
  return (value, name) =>
    typeof value === 'string' && choices.includes(value)
      ? undefined
      : wrong(name, value, `one of ${choices.map((c) => `"${c}"`).join(', ')}`);
}

/** A whole number from `min` to `max`, of `unit`. */
function wholeIn(min: number, max: number, unit: string): Rule {
  return (value, name) =>
    Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
      ? undefined
      : wrong(name, value, `a whole number of ${unit} from ${min} to ${max}`);
}

/** A finite number of milliseconds from `min` to `max`. */
function msIn(min: number, max: number): Rule {
  return (value, name) =>
    typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
      ? undefined
      : wrong(name, value, `a number of milliseconds from ${min} to ${max}`);
}

const listNames: Rule = (value, name) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : wrong(name, value, 'an array of list names');

const keyBytes: Rule = (value, name) =>
  typeof value === 'string' || value instanceof Uint8Array
    ? undefined
    : wrong(name, value, "a URL, a file, or the key configuration's bytes");

/** The closest of `names` to `name`, when it is close enough to be a slip of the keyboard. */
function closest(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Levenshtein distance, with transpositions counted as one edit (`srever` is one from `server`). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The problem with an object of options `rules` names, unknown names included. */
function problemOf(options: unknown, rules: OptionRules, path: string): { problem: string; option: string } | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    return { problem: wrong(path === '' ? 'the options' : path, options, 'an object'), option: path };
  for (const [key, value] of Object.entries(options)) {
    const name = path === '' ? key : `${path}.${key}`;
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      const guess = closest(key, Object.keys(rules));
      return {
        problem:
          `unknown option "${name}"${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; ` +
          `the options${path === '' ? '' : ` of ${path}`} are ${Object.keys(rules).join(', ')}`,
        option: name,
      };
    }
    if (value === undefined) continue;
    if ('members' in rule) {
      const found = problemOf(value, rule.members, name);
      if (found !== undefined) return found;
      continue;
    }
    const problem = rule(value, name);
    if (problem !== undefined) return { problem, option: name };
  }
  return undefined;
}

/** An object whose members `members` name, each by its rule, and no others. */
function objectOf(members: OptionRules): ObjectRule {
  return { members };
}

/** The options every client takes, on every runtime (SafeBrowsingClientOptions). */
export const CLIENT_OPTION_RULES: OptionRules = {
  server: text,
  apiKey: nonEmptyText,
  protocol: oneOf('v5', 'v4', 'webrisk'),
  mode: oneOf('realtime', 'local', 'nostorage'),
  dataDir: nonEmptyText,
  lists: listNames,
  encoding: oneOf('protobuf', 'json'),
  userAgent: text,
  timeoutMs: wholeIn(1, MAX_TIMER_MS, 'milliseconds'),
  maxResponseBytes: wholeIn(1, Number.MAX_SAFE_INTEGER, 'bytes'),
  maxListEntries: wholeIn(1, Number.MAX_SAFE_INTEGER, 'entries'),
  sizeConstraints: objectOf({ maxUpdateEntries: wholeIn(0, MAX_INT32, 'entries'), maxDatabaseEntries: wholeIn(0, MAX_INT32, 'entries') }),
  // SB-8: one request carries at most 30 prefixes, so at least one real one beside the decoys.
  decoyPrefixes: wholeIn(0, MAX_PREFIXES_PER_SEARCH - 1, 'prefixes'),
  cache: objectOf({
    maxEntries: wholeIn(1, Number.MAX_SAFE_INTEGER, 'entries'),
    maxBytes: wholeIn(1024 * 1024, Number.MAX_SAFE_INTEGER, 'bytes'),
    emptyResponseCacheMs: msIn(0, DAY_MS),
  }),
  firstUpdateWindowMs: msIn(0, MAX_TIMER_MS),
  minimumUpdateWaitMs: msIn(0, DAY_MS),
  ohttp: objectOf({ relay: nonEmptyText, keys: keyBytes }),
  readOnly: flag,
  clock: clockOf,
  random: callable,
  onEvent: callable,
};

/**
 * Throws ClientOptionError for the first option that is unknown (naming the closest known one), of the
 * wrong type, or out of range. `runtime` holds the options of one runtime only (the browser's storage).
 */
export function checkClientOptions(options: unknown, runtime: OptionRules = {}): void {
  const found = problemOf(options, { ...CLIENT_OPTION_RULES, ...runtime }, '');
  if (found !== undefined) throw new ClientOptionError(found.problem, { option: found.option });
  const ohttp = (options as { ohttp?: { relay?: unknown; keys?: unknown } }).ohttp;
  if (ohttp !== undefined && (ohttp.relay === undefined || ohttp.keys === undefined))
    throw new ClientOptionError("ohttp needs both relay (the relay to send through) and keys (the gateway's key configuration)", {
      option: 'ohttp',
    });
}
