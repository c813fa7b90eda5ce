// The `upstreamSearches` section of the server configuration (docs/configuration.md): how a caching
// proxy spends its upstream's patience, in the units people write them in.

import {
  expectKnownFields,
  expectObject,
  type WholeNumberField,
  wholeNumberFieldNames,
  wholeNumberSettings,
} from '../config/config-fields.ts';
import type { UpstreamSearchLimits } from './upstream-searches.ts';

/** Each limit's bounds, and its name in the file where it is not its own. */
const UPSTREAM_SEARCH_FIELDS = {
  requestsPerMinute: { min: 1, max: 100_000 },
  burst: { min: 1, max: 1000 },
  anonymousPrefixesPerMinute: { min: 0, max: 1_000_000 },
  neighbourhoodPrefixesPerMinute: { min: 0, max: 1_000_000 },
  keyedPrefixesPerMinute: { min: 0, max: 10_000_000 },
  relayedPrefixesPerMinute: { min: 0, max: 10_000_000 },
  maxWaitMs: { name: 'maxWaitMilliseconds', min: 100, max: 60_000 },
} satisfies { [Limit in keyof UpstreamSearchLimits]?: WholeNumberField };

/** The `upstreamSearches` section: how a proxy spends its upstream's patience. */
export function parseUpstreamSearches(value: unknown): Partial<UpstreamSearchLimits> {
  if (value === undefined) return {};
  const section = expectObject(value, 'upstreamSearches');
  expectKnownFields(section, wholeNumberFieldNames(UPSTREAM_SEARCH_FIELDS), 'upstreamSearches');
  return wholeNumberSettings(section, 'upstreamSearches', UPSTREAM_SEARCH_FIELDS);
}
