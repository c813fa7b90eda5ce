import { ConfigError } from './config-error.ts';

// Typed reads of JSON values with errors that name the field: the configuration is checked by hand
// against its documented shape (docs/configuration.md) rather than with a schema library, for messages that say
// exactly which setting is wrong and what it may be.

export type JsonObject = Record<string, unknown>;

/** The path of a member: `lists[0]` + `name` → `lists[0].name`. */
export function fieldOf(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** The path of an array element: `lists` + 0 → `lists[0]`. */
export function elementOf(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}

export function expectObject(value: unknown, field: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(field, `must be an object ({ ... }), not ${describe(value)}`);
  }
  return value as JsonObject;
}

/** Unknown fields are errors: a misspelt setting would otherwise be ignored without a word. */
export function expectKnownFields(object: JsonObject, known: readonly string[], field: string): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      throw new ConfigError(fieldOf(field, key), `is not a known setting here; the known ones are ${known.join(', ')}`);
    }
  }
}

export function expectString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new ConfigError(field, `must be a non-empty string, not ${describe(value)}`);
  }
  return value;
}

/** `object[key]` as true or false (`field` is where `object` stands), or undefined when it is absent. */
export function optionalBoolean(object: JsonObject, key: string, field: string): boolean | undefined {
  const value = object[key];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new ConfigError(fieldOf(field, key), `must be true or false, not ${describe(value)}`);
}

export interface NumberRange {
  min: number;
  max?: number;
  integer?: boolean;
}

export function expectNumber(value: unknown, field: string, range: NumberRange): number {
  const { min, max = Number.MAX_SAFE_INTEGER, integer = false } = range;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const kind = integer ? 'a whole number' : 'a number';
    const bounds = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(field, `must be ${kind} ${bounds}, not ${describe(value)}`);
  }
  return value;
}

/** `object[key]` read by {@link expectNumber} (`field` is where `object` stands), or undefined when it is absent. */
export function optionalNumber(object: JsonObject, key: string, field: string, range: NumberRange): number | undefined {
  return object[key] === undefined ? undefined : expectNumber(object[key], fieldOf(field, key), range);
}

/** How a file writes a whole-number setting: its bounds, and its name and unit where they are not the setting's. */
export interface WholeNumberField {
  min: number;
  max: number;
  /** The field's name in the file; the setting's when not given. */
  name?: string;
  /** What one unit of the file's is in the setting's: 1000 for seconds kept in ms; 1 when not given. */
  scale?: number;
}

type WholeNumberFields<Setting extends string> = Readonly<Partial<Record<Setting, WholeNumberField>>>;

/** The names `fields` (keyed by setting) have in the file, for {@link expectKnownFields}. */
export function wholeNumberFieldNames(fields: WholeNumberFields<string>): string[] {
  return Object.entries(fields).map(([setting, spec]) => spec?.name ?? setting);
}

/**
 * The whole numbers `section` gives of `fields` (keyed by setting), each in the setting's unit; absent
 * ones are left out, so that the defaults apply.
 *
 * @throws ConfigError naming the first bad field.
 */
export function wholeNumberSettings<Setting extends string>(
  section: JsonObject,
  field: string,
  fields: WholeNumberFields<Setting>,
): Partial<Record<Setting, number>> {
  const settings: Partial<Record<Setting, number>> = {};
  for (const [setting, { min, max, name = setting, scale = 1 }] of Object.entries(fields) as [Setting, WholeNumberField][]) {
    const value = optionalNumber(section, name, field, { min, max, integer: true });
    if (value !== undefined) settings[setting] = value * scale;
  }
  return settings;
}

function expectArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new ConfigError(field, `must be an array ([ ... ]), not ${describe(value)}`);
  return value;
}

/** An array each element of which `read` checks, given where the element stands (for errors). */
export function expectArrayOf<T>(value: unknown, field: string, read: (element: unknown, at: string) => T): T[] {
  return expectArray(value, field).map((element, index) => read(element, elementOf(field, index)));
}

/** A non-empty array of distinct values, each one of `allowed`. */
export function expectChoices<T extends string>(value: unknown, field: string, allowed: readonly T[]): T[] {
  const items = expectArray(value, field);
  if (items.length === 0) throw new ConfigError(field, `must name at least one of ${allowed.join(', ')}`);
  const chosen: T[] = [];
  items.forEach((item, index) => {
    if (!allowed.includes(item as T)) {
      throw new ConfigError(elementOf(field, index), `must be one of ${allowed.join(', ')}, not ${describe(item)}`);
    }
    if (chosen.includes(item as T)) throw new ConfigError(elementOf(field, index), `repeats ${String(item)}`);
    chosen.push(item as T);
  });
  return chosen;
}
