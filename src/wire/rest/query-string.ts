// Query strings as an ordered list of parameters. Order matters: Firefox's batchGet sends `version`
// values positionally, one per `names` entry, with empty placeholders (docs/api.md §3), so a map of
// name → last value (or an unordered multimap) would lose information.

import { WireError } from '../wire-error.ts';

export interface QueryParameter {
  name: string;
  value: string;
}

/**
 * Splits `a=1&b=&c` (no leading `?`) into parameters, percent-decoding names and values. `+` means a
 * space, as in HTML forms; callers that expect base64 turn spaces back into `+`. Empty segments
 * (`a=1&&b=2`) are skipped; a segment without `=` is a parameter with an empty value.
 */
export function parseQueryString(query: string): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  for (const segment of query.split('&')) {
    if (segment === '') continue;
    const eq = segment.indexOf('=');
    const rawName = eq < 0 ? segment : segment.slice(0, eq);
    const rawValue = eq < 0 ? '' : segment.slice(eq + 1);
    parameters.push({ name: unescapeComponent(rawName), value: unescapeComponent(rawValue) });
  }
  return parameters;
}

function unescapeComponent(raw: string): string {
  // Most components (list names, base64url prefixes, keys) have nothing to unescape.
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  const spaced = raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
    throw new WireError(
      'INVALID_ARGUMENT',
      `query string component ${JSON.stringify(shown)} has a malformed percent-escape (each % must start %XX of UTF-8)`,
    );
  }
}

/** Builds a query string (no leading `?`) from parameters, percent-encoding what needs it. */
export function formatQueryString(parameters: readonly QueryParameter[]): string {
  return parameters.map(({ name, value }) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}
