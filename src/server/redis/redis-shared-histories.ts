// The lists' histories as one Redis holds them under one key prefix, read and changed through the
// scripts of redis-snapshot-scripts.ts, one call per command. No memory of its own: what an instance
// knows of each history, and when it asks, is the shared snapshot store's (redis-snapshot-store.ts).
//
// Keys, for a list `name` (prefix `sbkit:` by default):
//   {prefix}list:{name}:history          LIST of snapshot ids, oldest first, the last current; at most keep
//   {prefix}list:{name}:snapshot:{id}    HASH fullHashes (sorted 32-byte hashes, concatenated) or, for a
//                                        mirrored list, served (its sorted hashes), or, written back after
//                                        Redis lost the list, kept and width (the served hashes of an older
//                                        snapshot whose full hashes are gone); createdAt (ms); serial
//   {prefix}list:{name}:state            HASH epoch (random, written once), serial (the latest publication's)
//   {prefix}list:{name}:received         for a mirrored list, when the upstream sent its newest copy (ms)
// The keys of one list share the hash tag {name}, so that a script touches one cluster slot.

import { randomBytes } from 'node:crypto';
import type { ListDefinition } from '../lists/list-definition.ts';
import type { KeptSnapshot, ListHistory } from '../lists/list-history.ts';
import type { Snapshot } from '../lists/snapshot.ts';
import { SnapshotStoreError } from '../lists/snapshot-store-error.ts';
import type { RedisCommands } from './redis-clients.ts';
import { type Content, type Offer, SNAPSHOT_FIELDS, snapshotOfFields, type Unusable } from './redis-snapshot-content.ts';
import { PUBLISH_SCRIPT, READ_SCRIPT, WRITE_BACK_SCRIPT } from './redis-snapshot-scripts.ts';

/** A list's state in Redis, as the scripts answer it. */
export interface SharedState {
  epoch: string;
  /** Snapshot ids, oldest first. */
  ids: string[];
  /** The serial of each id's latest publication. */
  serials: number[];
  /** Versions a write-back added to the history. */
  written: number;
  /**
   * For a mirrored list, when the upstream sent the newest copy any instance published (ms): the
   * current snapshot's, since an older publication does not displace it (PUBLISH_SCRIPT); undefined for
   * none.
   */
  received: number | undefined;
}

/** What a publishing instance knows of the shared history it publishes into. */
export interface Seen {
  /** The epoch it joined ('' for none yet). */
  epoch: string;
  /** Whether it holds a shared history: when Redis has lost it, the publication is refused as 'lost'. */
  holds: boolean;
}

export class SharedHistories {
  /**
   * @param label the Redis's URL without credentials, for messages.
   */
  constructor(
    private readonly client: RedisCommands,
    private readonly keyPrefix: string,
    private readonly label: string,
  ) {}

  async readState(history: ListHistory): Promise<SharedState> {
    const { definition } = history;
    const reply = await this.client.eval(READ_SCRIPT, {
      keys: [this.historyKey(definition), this.stateKey(definition), this.receivedKey(definition)],
      arguments: [this.contentKey(definition, '')],
    });
    return this.stateOf(definition, reply);
  }

  /**
   * Publishes `snapshot` (uploading its content only when Redis lacks it); 'lost' when Redis lost the
   * history this instance holds.
   */
  async publish(history: ListHistory, snapshot: Snapshot, content: Content, seen: Seen): Promise<SharedState | 'lost'> {
    return (
      (await this.publishOnce(history, snapshot, content, seen, false)) ?? (await this.publishOnce(history, snapshot, content, seen, true))!
    );
  }

  /** Runs the write-back script, sending the content of the snapshots in `send`; the ids it lacks the content of, or its answer. */
  async writeBack(history: ListHistory, offers: readonly Offer[], send: ReadonlySet<string>): Promise<SharedState | string[]> {
    const { definition } = history;
    const reply = await this.client.eval(WRITE_BACK_SCRIPT, {
      keys: [this.historyKey(definition), this.stateKey(definition), this.receivedKey(definition)],
      arguments: [
        String(history.keep),
        this.contentKey(definition, ''),
        newEpoch(),
        history.receivedAt === undefined ? '' : String(history.receivedAt),
        String(offers.length),
        ...offers.flatMap((offer) => [
          offer.id,
          String(offer.serial),
          offer.field,
          String(offer.createdAt),
          String(definition.hashLength),
          send.has(offer.id) ? '1' : '0',
          send.has(offer.id) ? asBuffer(offer.bytes()) : '',
        ]),
      ],
    });
    if (Array.isArray(reply) && tag(reply) === 'need' && Array.isArray(reply[1])) {
      return (reply[1] as unknown[]).map((id) => String(id));
    }
    return this.stateOf(definition, reply);
  }

  /** The snapshot `id` of a list as Redis holds it (snapshotOfFields); rejects when Redis does not answer. */
  async fetch(definition: ListDefinition, id: string): Promise<KeptSnapshot | Unusable> {
    const fields: (Buffer | null)[] = await this.client.hmGet(this.contentKey(definition, id), [...SNAPSHOT_FIELDS]);
    return snapshotOfFields(definition, id, fields);
  }

  private async publishOnce(
    history: ListHistory,
    snapshot: Snapshot,
    content: Content,
    seen: Seen,
    upload: boolean,
  ): Promise<SharedState | 'lost' | undefined> {
    const { definition } = history;
    const reply = await this.client.eval(PUBLISH_SCRIPT, {
      keys: [
        this.historyKey(definition),
        this.contentKey(definition, snapshot.id),
        this.receivedKey(definition),
        this.stateKey(definition),
      ],
      arguments: [
        snapshot.id,
        String(history.keep),
        this.contentKey(definition, ''),
        String(snapshot.createdAt),
        content.field,
        content.ordered ? '1' : '0',
        newEpoch(),
        seen.epoch,
        seen.holds ? '1' : '0',
        ...(upload ? [asBuffer(content.bytes)] : []),
      ],
    });
    if (reply === null) return undefined;
    if (Array.isArray(reply) && reply.length === 1 && tag(reply) === 'lost') return 'lost';
    const state = this.stateOf(definition, reply);
    // Not served until a replica holds it, where one does within the bound: a version clients took from
    // a primary that then died unreplicated is missing from the promoted one, and those clients would
    // get a full list (no diff from a version the history lacks).
    // Done in Redis whatever the wait answers: a failure to wait is no failure to publish.
    await this.client.replicated(this.historyKey(definition)).catch(() => 0);
    return state;
  }

  /** A script's { 'state', … } answer, read; SnapshotStoreError for anything else. */
  private stateOf(definition: ListDefinition, reply: unknown): SharedState {
    if (Array.isArray(reply) && reply.length === 6 && tag(reply) === 'state') {
      const [, epoch, ids, serials, written, received] = reply as unknown[];
      if (
        Buffer.isBuffer(epoch) &&
        Buffer.isBuffer(written) &&
        Buffer.isBuffer(received) &&
        isBuffers(ids) &&
        isBuffers(serials) &&
        ids.length === serials.length
      ) {
        return {
          epoch: epoch.toString('latin1'),
          // Snapshot ids come back as bulk strings, which this client reads as Buffers.
          ids: ids.map((id) => id.toString('latin1')),
          serials: serials.map((serial) => Number(serial.toString('latin1'))),
          written: Number(written.toString('latin1')),
          received: stampOf(received),
        };
      }
    }
    throw new SnapshotStoreError('unavailable', `Redis at ${this.label} answered about list ${definition.name} unexpectedly`);
  }

  private historyKey(definition: ListDefinition): string {
    return `${this.keyPrefix}list:{${definition.name}}:history`;
  }

  private stateKey(definition: ListDefinition): string {
    return `${this.keyPrefix}list:{${definition.name}}:state`;
  }

  private receivedKey(definition: ListDefinition): string {
    return `${this.keyPrefix}list:{${definition.name}}:received`;
  }

  private contentKey(definition: ListDefinition, id: string): string {
    return `${this.keyPrefix}list:{${definition.name}}:snapshot:${id}`;
  }
}

/** A random epoch, offered with every write: the first one written stays. */
function newEpoch(): string {
  return randomBytes(8).toString('hex');
}

/** A mirror stamp as Redis keeps it: ms since the epoch; undefined for none, or for anything else than a moment. */
function stampOf(value: Buffer): number | undefined {
  const stamp = Number(value.toString('latin1'));
  return value.length > 0 && Number.isSafeInteger(stamp) && stamp > 0 ? stamp : undefined;
}

function tag(reply: unknown[]): string | undefined {
  return Buffer.isBuffer(reply[0]) ? reply[0].toString('latin1') : undefined;
}

function isBuffers(value: unknown): value is Buffer[] {
  return Array.isArray(value) && value.every((item) => Buffer.isBuffer(item));
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
