// The `lists` of the server configuration (docs/configuration.md#lists): what each list is (its name,
// its threat or likely-safe types, its hash width) and its sources (config-sources.ts).

import { HASH_WIDTHS, type HashWidth, listNameProblem, listNameReason, widthOfListName } from '../../lists/list-name.ts';
import { LIKELY_SAFE_TYPES, type LikelySafeTypeName, THREAT_TYPES, type ThreatTypeName } from '../../lists/threat-types.ts';
import type { ListDefinition } from '../lists/list-definition.ts';
import { ConfigError } from './config-error.ts';
import {
  describe,
  elementOf,
  expectArrayOf,
  expectChoices,
  expectKnownFields,
  expectObject,
  expectString,
  fieldOf,
} from './config-fields.ts';
import { parseSource, type SourceConfig } from './config-sources.ts';

const LIKELY_SAFE_TYPE_NAMES: readonly LikelySafeTypeName[] = Object.values(LIKELY_SAFE_TYPES);
const THREAT_TYPE_NAMES: readonly ThreatTypeName[] = Object.values(THREAT_TYPES);
const LIST_FIELDS = ['name', 'threatTypes', 'likelySafeTypes', 'hashLength', 'description', 'sources'] as const;

/** One published list: what it is (exactly one of threatTypes and likelySafeTypes is non-empty) and where its entries come from. */
export interface ListConfig extends ListDefinition {
  sources: SourceConfig[];
}

/**
 * The `lists` array (absent: none), each list checked and its name unique; relative file paths of its
 * sources are resolved against `baseDir`.
 *
 * @throws ConfigError naming the first bad field.
 */
export function parseLists(value: unknown, baseDir: string): ListConfig[] {
  const lists = value === undefined ? [] : expectArrayOf(value, 'lists', (list, at) => parseList(list, at, baseDir));
  const names = new Set<string>();
  lists.forEach((list, i) => {
    if (names.has(list.name))
      throw new ConfigError(fieldOf(elementOf('lists', i), 'name'), `repeats the list name ${list.name}; list names must be unique`);
    names.add(list.name);
  });
  return lists;
}

function parseList(value: unknown, field: string, baseDir: string): ListConfig {
  const list = expectObject(value, field);
  expectKnownFields(list, LIST_FIELDS, field);
  const nameField = fieldOf(field, 'name');
  if (typeof list.name !== 'string') throw new ConfigError(nameField, `must be a list name such as se-4b, not ${describe(list.name)}`);
  const name = list.name;
  const problem = listNameProblem(name);
  if (problem !== undefined) throw new ConfigError(nameField, listNameReason(name, problem));

  if ((list.threatTypes === undefined) === (list.likelySafeTypes === undefined)) {
    throw new ConfigError(
      field,
      'needs exactly one of threatTypes (a threat list) and likelySafeTypes (a likely-safe list such as the global cache)',
    );
  }
  const threatTypes =
    list.threatTypes === undefined ? [] : expectChoices(list.threatTypes, fieldOf(field, 'threatTypes'), THREAT_TYPE_NAMES);
  const likelySafeTypes =
    list.likelySafeTypes === undefined
      ? []
      : expectChoices(list.likelySafeTypes, fieldOf(field, 'likelySafeTypes'), LIKELY_SAFE_TYPE_NAMES);

  const description = list.description === undefined ? '' : expectString(list.description, fieldOf(field, 'description'));
  const sources = expectArrayOf(list.sources, fieldOf(field, 'sources'), (source, at) => parseSource(source, at, baseDir));
  return {
    name,
    threatTypes,
    likelySafeTypes,
    hashLength: parseHashLength(list.hashLength, name, fieldOf(field, 'hashLength')),
    description,
    sources,
  };
}

/**
 * The configured width, or the one the name states; the two must agree, as clients pick lists by name.
 * docs/api.md `HashListMetadata.HashLength`: the widths a list can serve.
 */
function parseHashLength(value: unknown, name: string, field: string): HashWidth {
  // v5 names state their hash width: `se-4b`, `gc-32b`.
  const named = widthOfListName(name);
  if (value === undefined) return named ?? 4;
  if (!HASH_WIDTHS.includes(value as HashWidth)) {
    throw new ConfigError(field, `must be one of ${HASH_WIDTHS.join(', ')} (bytes), not ${JSON.stringify(value)}`);
  }
  if (named !== undefined && named !== value) {
    throw new ConfigError(field, `is ${JSON.stringify(value)} but the list name ${name} says ${named} bytes; change one of them`);
  }
  return value as HashWidth;
}
