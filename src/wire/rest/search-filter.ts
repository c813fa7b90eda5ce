// The v5alpha1 `filter` of hashes:search (docs/api.md §1: a CEL expression such as
// `threat_type == ThreatType.SOCIAL_ENGINEERING`). sbkit understands the part of CEL that selects
// threat types: one comparison, or several joined by `||`. Anything else is refused rather than
// ignored, since an ignored filter would answer with threats the client said it did not want.

import { ThreatType } from '../../proto/v5.ts';
import { WireError } from '../wire-error.ts';

/** Longer than any sensible filter; bounds the work on hostile input. */
const MAX_FILTER_LENGTH = 1000;
/** One comparison, bare or in one pair of parentheses. */
const COMPARISON = /^(?:threat_type\s*==\s*ThreatType\.([A-Z_]+)|\(\s*threat_type\s*==\s*ThreatType\.([A-Z_]+)\s*\))$/;

/** The threat type names a filter keeps; undefined for no filter. Throws WireError (400) for one sbkit cannot apply. */
export function parseSearchFilter(filter: string): ReadonlySet<string> | undefined {
  if (filter.trim() === '') return undefined;
  if (filter.length > MAX_FILTER_LENGTH) throw unsupported(`a filter has at most ${MAX_FILTER_LENGTH} characters`);
  const kept = new Set<string>();
  for (const term of filter.split('||')) {
    const match = COMPARISON.exec(term.trim());
    const name = match?.[1] ?? match?.[2];
    if (name === undefined) throw unsupported(`"${term.trim().slice(0, 80)}" is not a comparison of threat_type`);
    if (!(name in ThreatType) || name === 'THREAT_TYPE_UNSPECIFIED') throw unsupported(`ThreatType.${name} is not a threat type`);
    kept.add(name);
  }
  return kept;
}

function unsupported(why: string): WireError {
  return new WireError(
    'INVALID_ARGUMENT',
    `filter: ${why}; sbkit understands filters such as threat_type == ThreatType.MALWARE || threat_type == ThreatType.SOCIAL_ENGINEERING`,
  );
}
