// Whether a caching proxy's published copy of a mirrored list is current: the rule that decides when its
// list RPCs answer 503 rather than serve the copy (api-route.ts), and when a Web Risk mirror answers a
// prefix no list holds itself (listed-searches.ts). Pure: the mirror (upstream-mirror.ts) gathers the
// facts, this judges them.
//
// A client that takes a list update from the proxy counts its copy current from the moment it took it
// (list-updater.ts isCurrent): a proxy serving a copy whose updates stopped would reset every client's
// staleness clock, and each would answer SAFE for what the upstream listed since. So the proxy serves a
// copy only while it is current itself, by the mirroring client's own rule (update-schedule.ts
// currentForMs: through one missed update, at least an hour). What counts is when the upstream sent the
// copy, whoever fetched it: instances sharing Redis serve one copy, and one whose own updates fail still
// serves a copy another fetched recently. An instance knows the wait the upstream gave only for its own
// copy; for another's it takes the rule's least, an hour.

import { MIN_CURRENT_MS } from '../../client/updates/update-schedule.ts';

/**
 * Instances' clocks differ by less than this: a copy stamped further ahead of this one's clock is not
 * believed (a stamp in a shared Redis written by hand, or a bug, would keep a copy current for ever).
 */
export const MAX_STAMP_AHEAD_MS = 60_000;

/** What an instance knows of its copy of one list. */
export interface CopyFacts {
  /** When the upstream sent the copy published (ListHistory.receivedAt); undefined while none is. */
  receivedAt: number | undefined;
  /**
   * This instance's client's own copy: when the upstream sent it, and whether the client's rule calls it
   * current (Upstream.listCurrent); undefined when it holds none (never fetched, or dropped).
   */
  own: { updatedAt: number; current: boolean } | undefined;
  /** When this instance's client last dropped its copy (SB-9); undefined when it never did. */
  droppedAt: number | undefined;
}

/**
 * `current`: the copy may be served; `newest` when this instance knows no newer one (its client's own
 * copy is not newer: otherwise that one failed to be published, and the copy lacks what it added).
 * `none`: no copy yet. `dropped`: this instance's client found it inconsistent with the upstream's (SB-9)
 * and fetches the list again in full. `stale`: the upstream sent it too long ago. `stamped-ahead`: it
 * claims a moment ahead of this instance's clock.
 */
export type CopyCurrency =
  | { state: 'current'; newest: boolean }
  | { state: 'none' }
  | { state: 'dropped'; droppedAt: number }
  | { state: 'stale'; receivedAt: number }
  | { state: 'stamped-ahead'; receivedAt: number };

/** Whether the published copy `facts` describe is current at `now` (the header's rule). */
export function copyCurrency(facts: CopyFacts, now: number): CopyCurrency {
  const { receivedAt, own, droppedAt } = facts;
  if (receivedAt === undefined) return { state: 'none' };
  if (receivedAt > now + MAX_STAMP_AHEAD_MS) return { state: 'stamped-ahead', receivedAt };
  // A copy sent no later than the one found inconsistent is no better (SB-9); one sent since is.
  if (droppedAt !== undefined && receivedAt <= droppedAt) return { state: 'dropped', droppedAt };
  const newest = own === undefined || receivedAt >= own.updatedAt;
  // The client's rule, with the wait the upstream gave, vouches for its copy and for any sent since.
  if (own?.current === true && newest) return { state: 'current', newest };
  // Another instance's copy, or this one's own older one: the least the rule allows any copy.
  if (now - receivedAt <= MIN_CURRENT_MS) return { state: 'current', newest };
  return { state: 'stale', receivedAt };
}
