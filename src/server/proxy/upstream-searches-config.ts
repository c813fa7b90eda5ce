// The `upstreamSearches` section of the server configuration (docs/configuration.md): how a caching
// proxy spends its upstream's patience, in the units people write them in.

import { expectKnownFields, expectNumber, expectObject, fieldOf } from '../config/config-fields.ts';
import type { UpstreamSearchLimits } from './upstream-searches.ts';

const UPSTREAM_SEARCH_FIELDS = [
  'requestsPerMinute',
  'burst',
  'anonymousPrefixesPerMinute',
  'neighbourhoodPrefixesPerMinute',
  'keyedPrefixesPerMinute',
  'relayedPrefixesPerMinute',
  'maxWaitMilliseconds',
] as const;

/** The `upstreamSearches` section: how a proxy spends its upstream's patience. */
export function parseUpstreamSearches(value: unknown): Partial<UpstreamSearchLimits> {
  if (value === undefined) return {};
  const section = expectObject(value, 'upstreamSearches');
  expectKnownFields(section, UPSTREAM_SEARCH_FIELDS, 'upstreamSearches');
  const limits: Partial<UpstreamSearchLimits> = {};
  const read = (key: (typeof UPSTREAM_SEARCH_FIELDS)[number], min: number, max: number) =>
    section[key] === undefined ? undefined : expectNumber(section[key], fieldOf('upstreamSearches', key), { min, max, integer: true });
  const assign = <K extends keyof UpstreamSearchLimits>(key: K, v: number | undefined) => {
    if (v !== undefined) limits[key] = v;
  };
  assign('requestsPerMinute', read('requestsPerMinute', 1, 100_000));
  assign('burst', read('burst', 1, 1000));
  assign('anonymousPrefixesPerMinute', read('anonymousPrefixesPerMinute', 0, 1_000_000));
  assign('neighbourhoodPrefixesPerMinute', read('neighbourhoodPrefixesPerMinute', 0, 1_000_000));
  assign('keyedPrefixesPerMinute', read('keyedPrefixesPerMinute', 0, 10_000_000));
  assign('relayedPrefixesPerMinute', read('relayedPrefixesPerMinute', 0, 10_000_000));
  assign('maxWaitMs', read('maxWaitMilliseconds', 100, 60_000));
  return limits;
}
