import type { EntryEdits, EntryEditStore } from '../feeds/entry-edits.ts';
import { editsProblem, MAX_EDITS_BYTES, MAX_EDITS_PER_LIST, NO_EDITS, tooManyEdits } from '../feeds/entry-edits.ts';
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
 * Answers { 'too-many' } having changed nothing, or { 'ok' }.
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
return {'ok'}
`;

/*
 * Both sets as one read sees them (a script runs alone): never an update's added without its removed.
 * Bounded as a data folder bounds its file of edits (entry-edits.ts), since Redis may hold what no
 * update wrote (a hand in Redis, a bug): the cap on edits first, by the sets' sizes, so that a set
 * grown past it is never sent, then their bytes.
 *   KEYS: added, removed
 *   ARGV: the cap on edits, the bound on their bytes
 * Answers { 'ok', added, removed }, { 'too-many', edits } or { 'too-large', bytes }.
 */
const READ_SCRIPT = `
local count = redis.call('SCARD', KEYS[1]) + redis.call('SCARD', KEYS[2])
if count > tonumber(ARGV[1]) then return {'too-many', count} end
local added, removed = redis.call('SMEMBERS', KEYS[1]), redis.call('SMEMBERS', KEYS[2])
local bytes = 0
for _, set in ipairs({added, removed}) do
  for _, member in ipairs(set) do bytes = bytes + #member end
end
if bytes > tonumber(ARGV[2]) then return {'too-large', bytes} end
return {'ok', added, removed}
`;

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
 * Sets that hold what sbkit does not write (more edits than a list may hold, or more bytes than a data
 * folder's file of them, members that are no canonical expressions, one both added and removed) are
 * not taken: a load uses the edits last read and says so once; before a first read, it fails, as with
 * a data folder's file that cannot be read, so that the version served stays rather than one published
 * to every instance without the edits; and an update is refused, changing nothing.
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
    let held: EntryEdits | { problem: string };
    try {
      held = await this.fetch(list);
    } catch (error) {
      this.sayUnreadable(list, (error as Error).message);
      return this.lastRead.get(list) ?? NO_EDITS;
    }
    if ('problem' in held) {
      const why = this.unwritten(list, held.problem);
      const last = this.lastRead.get(list);
      // None read yet: the load fails, as with a data folder's file of edits that cannot be read, rather
      // than publish to every instance a version without the edits.
      if (last === undefined) throw new Error(this.cannotBeRead(list, why));
      this.sayUnreadable(list, why);
      return last;
    }
    if (this.unreadable.delete(list)) this.log.info(`list ${list}: the entry edits in Redis can be read again`);
    this.lastRead.set(list, held);
    return held;
  }

  async update(
    list: string,
    add: readonly string[],
    remove: readonly string[],
    maxEdits = MAX_EDITS_PER_LIST,
  ): Promise<EntryEdits | 'too-many'> {
    // Sets that cannot be read are not written over: the operator would take them for edits kept.
    const held = await this.fetch(list);
    if ('problem' in held) throw new Error(`${this.cannotBeRead(list, this.unwritten(list, held.problem))}; nothing was changed`);
    const reply = (await this.connection.client.eval(UPDATE_SCRIPT, {
      keys: [this.key(list, 'added'), this.key(list, 'removed')],
      arguments: [String(maxEdits), String(add.length), ...add, ...remove],
    })) as unknown[];
    if (String(reply[0]) === 'too-many') return 'too-many';
    return this.read(list);
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** The sets of `list`, or what they hold that sbkit does not write; rejects when Redis fails. */
  private async fetch(list: string): Promise<EntryEdits | { problem: string }> {
    const reply = await this.connection.client.eval(READ_SCRIPT, {
      keys: [this.key(list, 'added'), this.key(list, 'removed')],
      arguments: [String(MAX_EDITS_PER_LIST), String(MAX_EDITS_BYTES)],
    });
    const [answer, added, removed] = Array.isArray(reply) ? (reply as unknown[]) : [];
    switch (String(answer)) {
      case 'ok': {
        const edits = { added: strings(added), removed: strings(removed) };
        const problem = editsProblem(edits);
        return problem === undefined ? edits : { problem };
      }
      case 'too-many':
        return { problem: tooManyEdits(Number(added)) };
      case 'too-large':
        return { problem: `${Number(added)} bytes of edits, more than the ${MAX_EDITS_BYTES} a list's may take` };
      default:
        throw new Error(`Redis answered the read of the sets with ${JSON.stringify(reply)?.slice(0, 40) ?? 'nothing'}`);
    }
  }

  /** What the sets of `list` hold that sbkit does not write, said with what to do about it. */
  private unwritten(list: string, problem: string): string {
    return `they hold ${problem}; sbkit writes no such sets: correct or delete ${this.key(list, 'added')} and ${this.key(list, 'removed')}`;
  }

  private cannotBeRead(list: string, why: string): string {
    return `list ${list}: the entry edits in Redis at ${this.connection.label} cannot be read (${why})`;
  }

  /** Says once, until the sets of `list` can be read again, that loads use the edits last read. */
  private sayUnreadable(list: string, why: string): void {
    if (this.unreadable.has(list)) return;
    this.unreadable.add(list);
    this.log.warn(`${this.cannotBeRead(list, why)}; the list is loaded with the edits last read until they can be`);
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
