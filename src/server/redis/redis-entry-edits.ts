import type { EntryEdits, EntryEditStore } from '../feeds/entry-edits.ts';
import { MAX_EDITS_PER_LIST, NO_EDITS } from '../feeds/entry-edits.ts';
import { connectRedis, DEFAULT_KEY_PREFIX, type RedisConnection, type RedisOptions } from './redis-connection.ts';
import { type Logger, loggerOf } from '../logger.ts';

const DEFAULT_TIMEOUT_MS = 2000;

/*
 * An update, checked against the cap and made in one step (a script runs alone in Redis), so that
 * updates from several instances at once cannot all pass a cap each checked before the others wrote.
 * An expression is in at most one of the sets, and in exactly one after the update: the edits grow by
 * the distinct expressions named that were in neither. Members go one command each, not unpacked into
 * one: Lua's stack would not take an edit of 10,000 entries.
 *   KEYS: added, removed
 *   ARGV: the cap, how many of the members are added, then the members added, then those removed
 * Answers { 'too-many' } having changed nothing, or { 'ok', added, removed } with the sets after.
 */
const UPDATE_SCRIPT = `
local added, removed = KEYS[1], KEYS[2]
local cap, adds = tonumber(ARGV[1]), tonumber(ARGV[2])
local seen, fresh = {}, 0
for i = 3, #ARGV do
  local m = ARGV[i]
  if not seen[m] then
    seen[m] = true
    if redis.call('SISMEMBER', added, m) == 0 and redis.call('SISMEMBER', removed, m) == 0 then fresh = fresh + 1 end
  end
end
if redis.call('SCARD', added) + redis.call('SCARD', removed) + fresh > cap then return {'too-many'} end
for i = 3, 2 + adds do redis.call('SADD', added, ARGV[i]); redis.call('SREM', removed, ARGV[i]) end
for i = 3 + adds, #ARGV do redis.call('SREM', added, ARGV[i]); redis.call('SADD', removed, ARGV[i]) end
return {'ok', redis.call('SMEMBERS', added), redis.call('SMEMBERS', removed)}
`;

/** Both sets as one read sees them (a script runs alone): never an update's added without its removed. */
const READ_SCRIPT = `return {redis.call('SMEMBERS', KEYS[1]), redis.call('SMEMBERS', KEYS[2])}`;

/**
 * The operator's edits of the lists' entries (entry-edits.ts), shared by every instance through Redis,
 * two sets per list beside its history (the `{name}` hash tag keeps them on the list's cluster slot):
 *   {prefix}list:{name}:entries-added      canonical expressions added
 *   {prefix}list:{name}:entries-removed    canonical expressions removed
 * An update is one script, so that edits sent to two instances at once both count and the cap on the
 * edits holds for them together. Every instance reads
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
    private readonly log: Logger,
  ) {
    // Redis going away is told by the commands that fail (read, update), not by an unhandled event.
    connection.client.on('error', () => {});
  }

  /** Connects; rejects with RedisConnectionError when it cannot (without `watch.retry`, when Redis does not answer). */
  static async connect(options: RedisOptions): Promise<RedisEntryEdits> {
    const connection = await connectRedis(options.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.watch);
    return new RedisEntryEdits(connection, options.keyPrefix ?? DEFAULT_KEY_PREFIX, loggerOf(options.log));
  }

  async read(list: string): Promise<EntryEdits> {
    let edits: EntryEdits;
    try {
      const reply = await this.connection.client.eval(READ_SCRIPT, {
        keys: [this.key(list, 'added'), this.key(list, 'removed')],
        arguments: [],
      });
      const [added, removed] = Array.isArray(reply) ? (reply as unknown[]) : [];
      edits = { added: strings(added), removed: strings(removed) };
    } catch (error) {
      if (!this.unreadable.has(list)) {
        this.unreadable.add(list);
        this.log.warn(
          `list ${list}: the entry edits in Redis at ${this.connection.label} cannot be read (${(error as Error).message}); ` +
            'the list is loaded with the edits last read until Redis answers',
        );
      }
      return this.lastRead.get(list) ?? NO_EDITS;
    }
    if (this.unreadable.delete(list)) this.log.info(`list ${list}: the entry edits in Redis can be read again`);
    this.lastRead.set(list, edits);
    return edits;
  }

  async update(
    list: string,
    add: readonly string[],
    remove: readonly string[],
    maxEdits = MAX_EDITS_PER_LIST,
  ): Promise<EntryEdits | 'too-many'> {
    const reply = (await this.connection.client.eval(UPDATE_SCRIPT, {
      keys: [this.key(list, 'added'), this.key(list, 'removed')],
      arguments: [String(maxEdits), String(add.length), ...add, ...remove],
    })) as unknown[];
    if (String(reply[0]) === 'too-many') return 'too-many';
    const edits = { added: strings(reply[1]), removed: strings(reply[2]) };
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
