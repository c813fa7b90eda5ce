import { checksumOf, type SortedHashes, hashCount, emptyHashes, hashRange } from '../../store/hash-list.ts';
import { nodeSha256 } from '../../url/hash.ts';
import { type Clock, systemClock } from '../../time/clock.ts';
import { BoundedMap } from '../../store/bounded-map.ts';
import { EventLoopTurns } from '../../time/event-loop-turns.ts';
import { ListError } from './list-error.ts';
import type { ListDefinition } from './list-definition.ts';
import { diffLists, diffSteps, type ListDiff, partlyApplied } from './list-diff.ts';
import { type ClientState, decodeVersion, encodeVersion, type ServedState } from './list-version.ts';
import { Snapshot } from './snapshot.ts';

/** A client's size constraints (docs/api.md SizeConstraints, v4 Constraints); 0 means no limit. */
export interface SizeConstraints {
  maxUpdateEntries: number;
  maxDatabaseEntries: number;
}

/** One list update to send, before Rice coding (SB-9, docs/api.md HashList / v4 ListUpdateResponse). */
export interface ServedUpdate {
  /** false: a full update, the client replaces its list (and there are no removals). */
  partial: boolean;
  /** The client's version after this update; never empty (docs/api.md §3 pitfall 4). */
  version: Uint8Array;
  /** Ascending indices into the client's sorted list, applied before the additions. */
  removals: Uint32Array;
  additions: SortedHashes;
  /** SHA-256 of the client's sorted list after this update; always present (docs/api.md §3 pitfall 4). */
  checksum: Uint8Array;
  /**
   * false when `max_update_entries` cut the update short, or it led to a state that is not yet the
   * newest: send a zero minimum wait so the client comes straight back (SB-12).
   */
  complete: boolean;
}

/** A kept snapshot as far as diffs need it: its id and the list it serves (a Snapshot is one). */
export interface KeptSnapshot {
  readonly id: string;
  served(): SortedHashes;
}

export interface ListHistoryOptions {
  /** How many snapshots to keep, the current one included: clients at older versions get a full update. */
  keep: number;
  /** What stamps each snapshot with its creation (its list's minimum wait depends on it, SB-12); the system's by default. */
  clock?: Clock;
}

/** Diffs are the expensive part of an update, and a publish sends every client after the same few. */
const DIFF_CACHE_ENTRIES = 8;
/** Checksums of served states: 32 bytes each, asked for by every client at that state. */
const CHECKSUM_CACHE_ENTRIES = 256;

/**
 * The published snapshots of one list and the updates that bring clients to the newest (SB-9):
 * a client at a kept version gets removal indices and additions, a client with no version, an
 * unknown, forged or evicted one a full update, a client at the newest an empty update.
 *
 * Size constraints (docs/api.md SizeConstraints):
 * - `maxDatabaseEntries` N > 0, smaller than the list: the client is served the first N entries of the
 *   sorted list. Random hashes make any N of them an equally good sample, and the first N of a list
 *   change little when the list changes, so diffs between such subsets stay small. The subset is part
 *   of the version, so a client changing its N is diffed from what it really holds.
 * - `maxUpdateEntries` M > 0, smaller than the diff: the first M steps of the diff are sent (removals
 *   first, so the client's list never outgrows both ends of the transfer), with a version naming the
 *   transfer and how far it got; from that version the next request sends the following steps. Such an
 *   update is not `complete` (SB-12: zero minimum wait). A transfer is finished even when a newer
 *   snapshot is published meanwhile, then the client is diffed onwards; if either of its snapshots is
 *   no longer kept, the client gets a full update.
 *
 * Old snapshots are kept as their served lists only; the full hashes of the current one answer searches.
 */
export class ListHistory {
  readonly definition: ListDefinition;
  /** How many snapshots are kept, the current one included. */
  readonly keep: number;
  private readonly clock: Clock;
  private latest: Snapshot;
  /** Served lists of the kept snapshots by id, oldest first (a Map iterates in insertion order). */
  private readonly kept = new Map<string, SortedHashes>();
  private readonly diffs = new BoundedMap<string, ListDiff>(DIFF_CACHE_ENTRIES);
  private readonly checksums = new BoundedMap<string, Uint8Array>(CHECKSUM_CACHE_ENTRIES);
  private changes = 0;
  private copyReceivedAt: number | undefined;

  /** Starts with an empty snapshot: a list is served, empty, before its first publish (SB-9). */
  constructor(definition: ListDefinition, options: ListHistoryOptions) {
    if (!Number.isInteger(options.keep) || options.keep < 1) {
      throw new ListError(
        'invalid-keep',
        definition.name,
        `keep must be a whole number of snapshots of at least 1 (the current one), not ${options.keep}`,
      );
    }
    this.definition = definition;
    this.keep = options.keep;
    this.clock = options.clock ?? systemClock;
    this.latest = this.snapshotOf(new Uint8Array(0));
    this.kept.set(this.latest.id, this.latest.served());
  }

  /**
   * Publishes `fullHashes` (concatenated 32-byte hashes, any order, duplicates allowed) as the newest
   * snapshot and forgets the oldest beyond `keep`. The same content as the current snapshot changes
   * nothing and returns the current snapshot. Throws ListError ('ragged-full-hashes').
   */
  publish(fullHashes: Uint8Array): Snapshot {
    return this.publishSnapshot(this.snapshotOf(fullHashes));
  }

  /**
   * `publish` with the snapshot made in turns of the event loop (Snapshot.inTurns), so that requests are
   * answered meanwhile from the current one; the new one is served whole or not at all.
   */
  async publishInTurns(fullHashes: Uint8Array): Promise<Snapshot> {
    return this.publishSnapshot(await this.snapshotInTurns(fullHashes));
  }

  /**
   * `fullHashes` as a snapshot of this list made now, in turns of the event loop (Snapshot.inTurns), not
   * yet published (a store publishes it). Rejects with ListError ('ragged-full-hashes').
   */
  snapshotInTurns(fullHashes: Uint8Array): Promise<Snapshot> {
    return Snapshot.inTurns(this.definition, fullHashes, this.clock.now(), new EventLoopTurns());
  }

  private snapshotOf(fullHashes: Uint8Array): Snapshot {
    return Snapshot.of(this.definition, fullHashes, this.clock.now());
  }

  /** Publishes a list known only as its served hashes (a proxy's mirror of its upstream), received at `receivedAt`. */
  publishServed(served: SortedHashes, receivedAt = this.clock.now()): Snapshot {
    const snapshot = this.publishSnapshot(Snapshot.ofServed(this.definition, served, receivedAt));
    this.receivedAgain(receivedAt);
    return snapshot;
  }

  /**
   * For a mirrored list: when the upstream last sent the copy served (ms since the epoch), as far as this
   * instance knows; undefined while the history serves no upstream's copy (a list of this server's own,
   * or a mirror's before its first copy). A snapshot's `createdAt` stays when its content was first
   * received, since the same content is the same snapshot; this moves on each time the upstream sends
   * that content again, which is what says whether the copy is still the upstream's (upstream-mirror.ts).
   */
  get receivedAt(): number | undefined {
    return this.copyReceivedAt;
  }

  /**
   * The upstream sent the copy served again at `at` (this instance's mirror, or another's as a shared
   * store tells): a later moment than {@link receivedAt} moves it on. Nothing for a list of full hashes.
   */
  receivedAgain(at: number): void {
    if (this.latest.kind === 'served' && at > (this.copyReceivedAt ?? -Infinity)) this.copyReceivedAt = at;
  }

  /** Serves `snapshot` as the current one; a mirror's copy counts as received when its content was. */
  private serve(snapshot: Snapshot): void {
    if (snapshot.id !== this.latest.id) this.copyReceivedAt = snapshot.kind === 'served' ? snapshot.createdAt : undefined;
    this.latest = snapshot;
    this.changes++;
  }

  private publishSnapshot(snapshot: Snapshot): Snapshot {
    if (snapshot.id === this.latest.id) return this.latest;
    // Content published before and still kept moves to the newest place: its id, so its versions, stay.
    this.kept.delete(snapshot.id);
    this.kept.set(snapshot.id, snapshot.served());
    for (const id of this.kept.keys()) {
      if (this.kept.size <= this.keep) break;
      this.kept.delete(id);
    }
    this.serve(snapshot);
    return snapshot;
  }

  /** Counts the changes of the kept snapshots: equal revisions of one history serve the same versions. */
  get revision(): number {
    return this.changes;
  }

  current(): Snapshot {
    return this.latest;
  }

  /** The ids of the kept snapshots, oldest first: the last is the current one's. */
  keptIds(): string[] {
    return [...this.kept.keys()];
  }

  /** The kept snapshots, oldest first, the last the current one: what a shared store writes back when it lost them. */
  keptSnapshots(): KeptSnapshot[] {
    return [...this.kept].map(([id, served]) => (id === this.latest.id ? this.latest : { id, served: () => served }));
  }

  /**
   * Serves `current` and, before it, `older` (oldest first) in place of the snapshots kept so far: the
   * history as a store shared by several server instances orders it (snapshot-store.ts), so that all of
   * them diff between the same versions. An older snapshot comes as fetched from the store (a Snapshot,
   * or only its id and served list) or, when this history keeps it already, as its id; ids it does not
   * keep are left out. Only the newest `keep` are kept. Cached diffs and checksums stay valid: they are
   * keyed by content-derived ids.
   */
  adopt(current: Snapshot, older: readonly (KeptSnapshot | string)[]): void {
    const served = new Map<string, SortedHashes>();
    for (const entry of older) {
      const list = typeof entry === 'string' ? this.kept.get(entry) : entry.served();
      const id = typeof entry === 'string' ? entry : entry.id;
      if (list !== undefined && id !== current.id) served.set(id, list);
    }
    served.set(current.id, current.served());
    this.kept.clear();
    for (const [id, list] of [...served].slice(-this.keep)) this.kept.set(id, list);
    this.serve(current);
  }

  /** True when `version` is one of this list's, naming only kept snapshots (batchGet pairs versions to lists). */
  recognizes(version: Uint8Array): boolean {
    const state = decodeVersion(version);
    if (state === undefined) return false;
    if (state.kind === 'settled') return this.list(state.at) !== undefined;
    return (state.from === undefined || this.list(state.from) !== undefined) && this.list(state.to) !== undefined;
  }

  /**
   * The update that brings a client at `clientVersion` (empty for a client with no copy) towards the
   * current snapshot within its size constraints (0 = no limit). Any bytes are accepted as a version:
   * what is not a version of a kept snapshot gets a full update. Returned arrays may be shared with
   * other answers: do not modify them.
   */
  updateFor(clientVersion: Uint8Array, constraints: SizeConstraints): ServedUpdate {
    const { maxUpdateEntries, maxDatabaseEntries } = this.checked(constraints);
    const target = this.servedState(maxDatabaseEntries);
    const transfer = this.transferFor(decodeVersion(clientVersion), target);
    const { from, to, progress, diff } = transfer;
    const end = maxUpdateEntries > 0 ? Math.min(diff.size, progress + maxUpdateEntries) : diff.size;
    const reached: ClientState = end === diff.size ? { kind: 'settled', at: to } : { kind: 'transfer', from, to, progress: end };
    const version = encodeVersion(reached);
    const checksum = this.checksums.getOrCompute(Buffer.from(version).toString('hex'), () =>
      checksumOf(reached.kind === 'settled' ? this.list(to)! : partlyApplied(this.listOrEmpty(from), diff, end), nodeSha256),
    );
    return {
      partial: from !== undefined || progress > 0,
      version,
      ...diffSteps(diff, progress, end),
      checksum,
      complete: reached.kind === 'settled' && sameState(to, target),
    };
  }

  /**
   * The request `updateFor` answers alike, in one form (issue 26, S10): a version that names nothing it
   * can continue from as none (the full update, a reset), a version as this list writes it, and a
   * constraint the answer does not reach as no limit. `updateFor` of the result gives the same update,
   * so the answer's cache key (list-etag.ts) is made of it: made-up versions and constraints that cut
   * nothing cannot make the server encode a list again.
   */
  canonicalRequest(clientVersion: Uint8Array, constraints: SizeConstraints): { version: Uint8Array; constraints: SizeConstraints } {
    const { maxUpdateEntries, maxDatabaseEntries } = this.checked(constraints);
    const target = this.servedState(maxDatabaseEntries);
    const { from, progress, diff, to } = this.transferFor(decodeVersion(clientVersion), target);
    let version: Uint8Array = new Uint8Array(0);
    if (progress > 0) version = encodeVersion({ kind: 'transfer', from, to, progress });
    else if (from !== undefined) version = encodeVersion({ kind: 'settled', at: from });
    const cuts = maxUpdateEntries > 0 && progress + maxUpdateEntries < diff.size;
    return { version, constraints: { maxUpdateEntries: cuts ? maxUpdateEntries : 0, maxDatabaseEntries: target.limit } };
  }

  private checked(constraints: SizeConstraints): SizeConstraints {
    for (const [field, value] of Object.entries(constraints)) {
      if (!Number.isInteger(value) || value < 0) {
        throw new ListError('invalid-constraint', this.definition.name, `${field} must be a whole number, 0 for no limit, not ${value}`);
      }
    }
    return constraints;
  }

  /** What the current snapshot serves to a client holding at most `maxDatabaseEntries` (0: all). */
  private servedState(maxDatabaseEntries: number): ServedState {
    const count = hashCount(this.latest.served());
    // A limit the list does not reach is no limit: one state, one version, for all such clients.
    return { snapshotId: this.latest.id, limit: maxDatabaseEntries > 0 && maxDatabaseEntries < count ? maxDatabaseEntries : 0 };
  }

  /** The list of a served state (a limit beyond the list is the whole list), or undefined when its snapshot is not kept. */
  private list(state: ServedState): SortedHashes | undefined {
    const served = this.kept.get(state.snapshotId);
    return served === undefined || state.limit === 0 ? served : hashRange(served, 0, state.limit);
  }

  private listOrEmpty(state: ServedState | undefined): SortedHashes {
    return state === undefined ? emptyHashes(this.definition.hashLength) : this.list(state)!;
  }

  /**
   * Where a client goes from the state its version names: on with its unfinished transfer, from its
   * settled state to the target, or, when the version names nothing we keep or is inconsistent, from
   * an empty list (a full update).
   */
  private transferFor(state: ClientState | undefined, target: ServedState): Transfer {
    if (state?.kind === 'settled' && this.list(state.at) !== undefined) {
      return { from: state.at, to: target, progress: 0, diff: this.diff(state.at, target) };
    }
    if (
      state?.kind === 'transfer' &&
      (state.from === undefined || this.list(state.from) !== undefined) &&
      this.list(state.to) !== undefined
    ) {
      const diff = this.diff(state.from, state.to);
      if (state.progress > 0 && state.progress < diff.size) return { ...state, diff };
    }
    return { from: undefined, to: target, progress: 0, diff: this.diff(undefined, target) };
  }

  /** The diff between two kept states (undefined: the empty list), cached. */
  private diff(from: ServedState | undefined, to: ServedState): ListDiff {
    const toList = this.list(to)!;
    if (from === undefined) return { removals: new Uint32Array(0), additions: toList, size: hashCount(toList) };
    return this.diffs.getOrCompute(`${stateKey(from)}>${stateKey(to)}`, () => diffLists(this.list(from)!, toList));
  }
}

interface Transfer {
  from: ServedState | undefined;
  to: ServedState;
  progress: number;
  diff: ListDiff;
}

function stateKey(state: ServedState): string {
  return `${state.snapshotId}/${state.limit}`;
}

function sameState(a: ServedState, b: ServedState): boolean {
  return a.snapshotId === b.snapshotId && a.limit === b.limit;
}
