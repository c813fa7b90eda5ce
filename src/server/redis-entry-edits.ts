import type { EntryEdits, EntryEditStore } from './feeds/entry-edits.ts';
import { NO_EDITS } from './feeds/entry-edits.ts';
import { connectRedis, DEFAULT_KEY_PREFIX, type RedisConnection, type RedisWatch } from './redis-connection.ts';

export interface RedisEntryEditsOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. */
  url: string;
  /** Starts every key: the instances publishing one set of lists share it. */
  keyPrefix?: string;
  /** Bound on connecting and on each command. */
  timeoutMs?: number;
  /** Where to say that the edits could not be read. */
  log?: (message: string) => void;
  /** Start without Redis when it does not answer, and report to the service's metrics (redis-monitor.ts). */
  watch?: RedisWatch;
}

const DEFAULT_TIMEOUT_MS = 2000;

/**
 * The operator's edits of the lists' entries (entry-edits.ts), shared by every instance through Redis,
 * two sets per list beside its history (the `{name}` hash tag keeps them on the list's cluster slot):
 *   {prefix}list:{name}:entries-added      canonical expressions added
 *   {prefix}list:{name}:entries-removed    canonical expressions removed
 * An update is one MULTI, so that edits sent to two instances at once both count. Every instance reads
 * the sets at each load of the list, so that its own reloads keep what an edit on another one added.
 * While Redis does not answer, a load uses the edits last read (none before the first read), says so,
 * and an update fails: an edit the other instances would not see is refused rather than half-made.
 */
export class RedisEntryEdits implements EntryEditStore {
  readonly keeping = 'redis';
  private readonly lastRead = new Map<string, EntryEdits>();
  private readonly unreadable = new Set<string>();

  private constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    private readonly log: (message: string) => void,
  ) {
    // Redis going away is told by the commands that fail (read, update), not by an unhandled event.
    connection.client.on('error', () => {});
  }

  /** Connects; rejects with RedisConnectionError when it cannot (without `watch.retry`, when Redis does not answer). */
  static async connect(options: RedisEntryEditsOptions): Promise<RedisEntryEdits> {
    const connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch);
    return new RedisEntryEdits(connection, options.keyPrefix ?? DEFAULT_KEY_PREFIX, options.log ?? (() => {}));
  }

  async read(list: string): Promise<EntryEdits> {
    let edits: EntryEdits;
    try {
      const [added, removed] = await this.connection.client
        .multi()
        .sMembers(this.key(list, 'added'))
        .sMembers(this.key(list, 'removed'))
        .exec();
      edits = { added: strings(added), removed: strings(removed) };
    } catch (error) {
      if (!this.unreadable.has(list)) {
        this.unreadable.add(list);
        this.log(
          `list ${list}: the entry edits in Redis at ${this.connection.label} cannot be read (${(error as Error).message}); ` +
            'the list is loaded with the edits last read until Redis answers',
        );
      }
      return this.lastRead.get(list) ?? NO_EDITS;
    }
    if (this.unreadable.delete(list)) this.log(`list ${list}: the entry edits in Redis can be read again`);
    this.lastRead.set(list, edits);
    return edits;
  }

  async update(list: string, add: readonly string[], remove: readonly string[]): Promise<EntryEdits> {
    const added = this.key(list, 'added');
    const removed = this.key(list, 'removed');
    // Commands queue on the one MULTI (each returns it); SADD and SREM take no empty set of members.
    const multi = this.connection.client.multi();
    if (add.length > 0) multi.sAdd(added, [...add]).sRem(removed, [...add]);
    if (remove.length > 0) multi.sRem(added, [...remove]).sAdd(removed, [...remove]);
    const replies: unknown[] = await multi.sMembers(added).sMembers(removed).exec();
    const edits = { added: strings(replies.at(-2)), removed: strings(replies.at(-1)) };
    this.lastRead.set(list, edits);
    return edits;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private key(list: string, set: 'added' | 'removed'): string {
    return `${this.keyPrefix}list:{${list}}:entries-${set}`;
  }
}

/** A set's members as sorted strings (the client hands out Buffers). */
function strings(reply: unknown): string[] {
  return Array.isArray(reply)
    ? reply.map((member: unknown) => (Buffer.isBuffer(member) ? member.toString('utf8') : String(member))).sort()
    : [];
}
