// The rule of a proxy's published copy (copy-currency.ts), case by case: the facts an instance knows of
// its copy of one list, at one moment, and the verdict.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MIN_CURRENT_MS } from '../../../src/client/updates/update-schedule.ts';
import { type CopyCurrency, type CopyFacts, copyCurrency, MAX_STAMP_AHEAD_MS } from '../../../src/server/proxy/copy-currency.ts';

const NOW = 1_800_000_000_000;
const HOUR = MIN_CURRENT_MS;

const CASES: [string, CopyFacts, CopyCurrency][] = [
  ['no copy published', { receivedAt: undefined, own: undefined, droppedAt: undefined }, { state: 'none' }],
  [
    "its own copy, current by the client's rule however old (a long wait from the upstream)",
    { receivedAt: NOW - 3 * HOUR, own: { updatedAt: NOW - 3 * HOUR, current: true }, droppedAt: undefined },
    { state: 'current', newest: true },
  ],
  [
    'its own copy, which the client no longer calls current',
    { receivedAt: NOW - HOUR - 1, own: { updatedAt: NOW - HOUR - 1, current: false }, droppedAt: undefined },
    { state: 'stale', receivedAt: NOW - HOUR - 1 },
  ],
  [
    "another instance's copy, newer than its own, which is current",
    { receivedAt: NOW - 60_000, own: { updatedAt: NOW - 120_000, current: true }, droppedAt: undefined },
    { state: 'current', newest: true },
  ],
  [
    "another instance's copy, sent within the hour, its own client holding none",
    { receivedAt: NOW - HOUR, own: undefined, droppedAt: undefined },
    { state: 'current', newest: true },
  ],
  [
    "another instance's copy, sent over an hour ago, its own client holding none",
    { receivedAt: NOW - HOUR - 1, own: undefined, droppedAt: undefined },
    { state: 'stale', receivedAt: NOW - HOUR - 1 },
  ],
  [
    "another instance's copy, sent over an hour ago, while its own older one is current by a long wait: the older vouches for the newer",
    { receivedAt: NOW - 2 * HOUR, own: { updatedAt: NOW - 3 * HOUR, current: true }, droppedAt: undefined },
    { state: 'current', newest: true },
  ],
  [
    'an older copy than its own, which could not be published: current within the hour, but not the newest',
    { receivedAt: NOW - 10 * 60_000, own: { updatedAt: NOW - 60_000, current: true }, droppedAt: undefined },
    { state: 'current', newest: false },
  ],
  [
    'an older copy than its own, over an hour old',
    { receivedAt: NOW - HOUR - 1, own: { updatedAt: NOW - 60_000, current: true }, droppedAt: undefined },
    { state: 'stale', receivedAt: NOW - HOUR - 1 },
  ],
  [
    'the copy its client dropped (SB-9)',
    { receivedAt: NOW - 5 * 60_000, own: undefined, droppedAt: NOW - 60_000 },
    { state: 'dropped', droppedAt: NOW - 60_000 },
  ],
  [
    'a copy another instance fetched after the drop',
    { receivedAt: NOW - 30_000, own: undefined, droppedAt: NOW - 60_000 },
    { state: 'current', newest: true },
  ],
  [
    'a copy stamped ahead of its clock by more than clocks differ',
    { receivedAt: NOW + MAX_STAMP_AHEAD_MS + 1, own: undefined, droppedAt: undefined },
    { state: 'stamped-ahead', receivedAt: NOW + MAX_STAMP_AHEAD_MS + 1 },
  ],
  [
    'a copy stamped ahead by as much as clocks may differ',
    { receivedAt: NOW + MAX_STAMP_AHEAD_MS, own: undefined, droppedAt: undefined },
    { state: 'current', newest: true },
  ],
];

describe('copyCurrency', () => {
  for (const [what, facts, expected] of CASES) {
    it(what, () => {
      assert.deepEqual(copyCurrency(facts, NOW), expected);
    });
  }
});
