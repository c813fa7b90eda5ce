// Each requester's share of the prefixes a caching proxy sends its upstream (upstream-searches.ts), and
// the turn its search takes when upstream requests are scarce. Shares are counted over the last minute,
// on what a client cannot choose:
//   - an API key the server accepts: `keyedPrefixesPerMinute`;
//   - an address (IPv6: its /64): `anonymousPrefixesPerMinute`, and its neighbourhood (IPv6: its /56,
//     guard/client-address.ts) `neighbourhoodPrefixesPerMinute`, so that the 256 /64s of one
//     subscriber do not make 256 shares;
//   - a trusted Oblivious HTTP relay: `relayedPrefixesPerMinute`, one pool for all its users, sized for
//     many; its users cannot be told apart (that is the point of the relay), so one relayed search may
//     send no more than an address that spent nothing may, and the pool outlasts many such searches.
// Only the prefixes no cache answers count (upstream-searches.ts). A search may be as large as its share,
// or one request's worth when the share is smaller and it spent nothing in the last minute (withinShare);
// a larger one could never go, however long it waited, and is refused as too large (400) rather than
// told to come back (503), which its client would do for ever.
// A search's turn: the prefixes its requester (or its neighbourhood, whichever is more) sent up in the
// last minute, this search's included; fewer go first, so a handful of prefixes is not starved behind
// full batches of requesters that take a whole request each. A relayed search's turn is its own size.

import { SEARCH_PREFIXES_PER_REQUEST } from '../../client/hash-searcher.ts';
import { WireError } from '../../wire/wire-error.ts';
import type { Requester } from '../guard/requester.ts';
import { BoundedMap } from '../../store/bounded-map.ts';

/** How many prefixes each kind of requester may send upstream per minute. */
export interface UpstreamShareLimits {
  /** Prefixes one requester without an API key (an address, IPv6 by /64) may send upstream per minute. */
  anonymousPrefixesPerMinute: number;
  /** Prefixes the addresses of one neighbourhood (an IPv6 /56; an IPv4 address is its own) may send upstream per minute together. */
  neighbourhoodPrefixesPerMinute: number;
  /** Prefixes one API key may send upstream per minute. */
  keyedPrefixesPerMinute: number;
  /** Prefixes the users of one trusted Oblivious HTTP relay may send upstream per minute together. */
  relayedPrefixesPerMinute: number;
}

/** Requesters and neighbourhoods whose recent prefixes are remembered at most; the least recently seen are forgotten first. */
const MAX_REMEMBERED = 100_000;
/** The window shares are counted over. */
export const SHARE_WINDOW_MS = 60_000;
/**
 * What a share remembers is counted by the second: the searches of one second are one entry, dated at its
 * start. A requester's record is then at most 61 entries however many searches it makes (its share could
 * be thousands of one-prefix searches, each read at every decision), at the price of a search leaving
 * the window up to a second early.
 */
export const SHARE_STEP_MS = 1000;

/** One budget a search is counted against: its requester's, or its neighbourhood's. */
export interface ShareTier {
  id: string;
  share: number;
  /** Whether what it spent places the search in the queue (a relay's pool, spent by many, does not). */
  places: boolean;
  /** Whose share it is, for the refusal's message. */
  kind: 'client' | 'network' | 'API key' | 'relay';
  /** The most prefixes one search may send of it, whatever was spent: a larger search can never go. */
  largest: number;
}

/** The prefixes each requester and neighbourhood sent upstream in the last minute, and their turns. */
export class UpstreamShares {
  private readonly spent = new BoundedMap<string, { at: number; count: number }[]>(MAX_REMEMBERED);

  constructor(private readonly limits: UpstreamShareLimits) {}

  /**
   * Counts `count` upstream-bound prefixes of `requester`'s search at `now` against its shares and
   * returns the search's turn (lower goes first). Throws WireError UNAVAILABLE, with Retry-After, when a
   * share would be exceeded: nothing is counted then.
   */
  spend(requester: Requester, count: number, now: number): number {
    const tiers = shareTiers(requester, count, this.limits);
    const windows = tiers.map((tier) => {
      const recent = this.spent.getOrCompute(tier.id, () => []);
      while (recent.length > 0 && now - recent[0]!.at >= SHARE_WINDOW_MS) recent.shift();
      return { tier, recent, used: recent.reduce((sum, entry) => sum + entry.count, 0) };
    });
    for (const { tier, recent, used } of windows) {
      if (withinShare(tier, used, count)) continue;
      throw shareRefusal(tier, used + count, SHARE_WINDOW_MS - (now - (recent[0]?.at ?? now)));
    }
    let turn = count;
    const step = now - (now % SHARE_STEP_MS);
    for (const { tier, recent, used } of windows) {
      const last = recent.at(-1);
      if (last?.at === step) last.count += count;
      else recent.push({ at: step, count });
      if (tier.places) turn = Math.max(turn, used + count);
    }
    return turn;
  }
}

/**
 * The budgets a search of `count` prefixes by `requester` is counted against. Throws WireError
 * INVALID_ARGUMENT for a search larger than one of them lets any search be (searchTooLarge).
 */
export function shareTiers(requester: Requester, count: number, limits: UpstreamShareLimits): ShareTier[] {
  const tiers = tiersOf(requester, limits);
  const tooLarge = tiers.find((tier) => count > tier.largest);
  if (tooLarge !== undefined) throw searchTooLarge(tooLarge, count);
  return tiers;
}

/** The budgets of `requester`, each with the largest search it lets go. */
function tiersOf(requester: Requester, limits: UpstreamShareLimits): ShareTier[] {
  // What withinShare lets a search be at most, when its tier spent nothing.
  const largest = (share: number) => Math.max(share, SEARCH_PREFIXES_PER_REQUEST);
  if (requester.keyed) {
    const share = limits.keyedPrefixesPerMinute;
    return [{ id: requester.id, share, places: true, kind: 'API key', largest: largest(share) }];
  }
  if (requester.relayed === true) {
    const share = limits.relayedPrefixesPerMinute;
    // No larger than a fresh address's search: the pool is many users' (the header above).
    const fresh = largest(limits.anonymousPrefixesPerMinute);
    return [{ id: requester.id, share, places: false, kind: 'relay', largest: Math.min(fresh, largest(share)) }];
  }
  const share = limits.anonymousPrefixesPerMinute;
  const tiers: ShareTier[] = [{ id: requester.id, share, places: true, kind: 'client', largest: largest(share) }];
  if (requester.neighbourhood !== undefined) {
    const shared = limits.neighbourhoodPrefixesPerMinute;
    tiers.push({ id: `neighbourhood:${requester.neighbourhood}`, share: shared, places: true, kind: 'network', largest: largest(shared) });
  }
  return tiers;
}

/**
 * The refusal of a search of `count` prefixes larger than `tier` lets one search be: 400, without
 * Retry-After, since waiting would not help; the message names the limit so that the client splits it.
 */
function searchTooLarge(tier: ShareTier, count: number): WireError {
  const key = tier.kind === 'client' || tier.kind === 'network' ? ', or search with an API key this server accepts' : '';
  return new WireError(
    'INVALID_ARGUMENT',
    `this search would send ${count} prefixes that no cache here answers to the upstream server at once, ` +
      `and one search of this ${tier.kind} may send at most ${tier.largest}, however long it waits: ` +
      `send fewer URLs or hash prefixes per request${key}`,
  );
}

/**
 * Whether `count` more prefixes fit a tier that `used` in the window. A search larger than the whole
 * share, up to one request's worth, goes when nothing was spent in the window (and spends it): refused,
 * it would be refused for ever (sbkit's own client sends up to SEARCH_PREFIXES_PER_REQUEST at once).
 * Larger ones never go, and shareTiers refuses them before they are counted (ShareTier.largest).
 */
export function withinShare(tier: ShareTier, used: number, count: number): boolean {
  return used + count <= tier.share || (used === 0 && count <= SEARCH_PREFIXES_PER_REQUEST);
}

/** The refusal of a search that would bring a tier to `total` prefixes, of which room comes again in `retryAfterMs`. */
export function shareRefusal(tier: ShareTier, total: number, retryAfterMs: number): WireError {
  return new WireError(
    'UNAVAILABLE',
    `this search would send ${total} prefixes of this ${tier.kind} to the upstream server within a minute, ` +
      `which accepts ${tier.share} of one ${tier.kind}; try again later`,
    { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) },
  );
}
