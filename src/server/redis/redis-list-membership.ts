import type { SharedState, Seen } from './redis-shared-histories.ts';

/**
 * What this instance knows of one list's shared history in Redis (redis-snapshot-store.ts): whether it
 * joined it, the epoch it saw, and the serial of each snapshot it holds, by which it tells that Redis
 * lost the history and what to write back.
 */
export class Membership {
  /** True once the history was brought to the shared state: from then on Redis orders it. */
  joined = false;
  /** The epoch last seen ('' before any, or from a Redis written before epochs). */
  private epoch = '';
  /** The serial of each snapshot published (0: published here while Redis was out of reach). */
  private serials = new Map<string, number>();

  /** Notes what Redis holds of the list: from now on the instance follows its shared history. */
  learn(state: SharedState): void {
    this.joined = true;
    this.epoch = state.epoch;
    this.serials = new Map(state.ids.map((id, i) => [id, state.serials[i]!]));
  }

  /** Notes a snapshot published here while Redis was out of reach: it is written back once Redis answers. */
  publishedAlone(id: string): void {
    this.serials.set(id, 0);
  }

  /** Whether any snapshot held was published, in Redis or while it was out of reach. */
  get published(): boolean {
    return this.serials.size > 0;
  }

  /** The serial of the publication of snapshot `id`; undefined for one never published. */
  serialOf(id: string): number | undefined {
    return this.serials.get(id);
  }

  /** True when Redis no longer holds the history this instance joined: another epoch, or no history at all. */
  lostBy(state: SharedState): boolean {
    if (state.ids.length === 0) return this.published;
    return this.epoch !== '' && state.epoch !== this.epoch;
  }

  /** What a publication tells Redis of the shared history this instance has seen. */
  get seen(): Seen {
    return { epoch: this.joined ? this.epoch : '', holds: this.joined && this.published };
  }
}
