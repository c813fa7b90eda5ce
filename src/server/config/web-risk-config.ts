// The `webRiskLists` section (docs/configuration.md#webrisklists): which list answers each Web Risk
// threat type, over the defaults of lists/web-risk-lists.ts. `null` answers a type with no list.

import { listNameProblem, listNameReason, widthOfListName } from '../../lists/list-name.ts';
import { DEFAULT_WEB_RISK_LISTS, WEB_RISK_THREAT_TYPE_NAMES, type WebRiskLists } from '../../lists/web-risk-lists.ts';
import { ConfigError } from './config-error.ts';
import { describe, expectKnownFields, expectObject, fieldOf } from './config-fields.ts';
import type { ListConfig } from './config-lists.ts';

/**
 * The mapping, defaults filled in. A list named must be one of `lists` when the configuration has any
 * (a proxy's come from its upstream), and of 4-byte hashes: Web Risk carries no other width.
 */
export function parseWebRiskLists(value: unknown, lists: readonly ListConfig[]): WebRiskLists {
  if (value === undefined) return DEFAULT_WEB_RISK_LISTS;
  const section = expectObject(value, 'webRiskLists');
  expectKnownFields(section, WEB_RISK_THREAT_TYPE_NAMES, 'webRiskLists');
  const mapping = { ...DEFAULT_WEB_RISK_LISTS };
  for (const type of WEB_RISK_THREAT_TYPE_NAMES) {
    const given = section[type];
    if (given === undefined) continue;
    const field = fieldOf('webRiskLists', type);
    if (given === null) {
      mapping[type] = undefined;
      continue;
    }
    if (typeof given !== 'string')
      throw new ConfigError(field, `must be a list name such as mw-4b, or null for none; not ${describe(given)}`);
    const problem = listNameProblem(given);
    if (problem !== undefined) throw new ConfigError(field, listNameReason(given, problem));
    const list = lists.find((candidate) => candidate.name === given);
    if (lists.length > 0 && list === undefined) {
      throw new ConfigError(field, `names ${given}, which is none of lists (${lists.map((l) => l.name).join(', ')})`);
    }
    const width = list?.hashLength ?? widthOfListName(given);
    if (width !== undefined && width !== 4) {
      throw new ConfigError(field, `names ${given}, a list of ${width}-byte hashes; only 4-byte lists can be Web Risk lists`);
    }
    mapping[type] = given;
  }
  return mapping;
}
