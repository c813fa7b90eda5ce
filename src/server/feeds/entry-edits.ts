// What an operator added to and removed from a list's `entries` sources while the server ran
// (`POST /admin/lists/NAME/entries`, admin-entries.ts), kept beside the list:
//
//   no --data, no --redis   this process's memory: the edits last until the server stops
//   --data DIR              DIR/<list>.entries.json, written durably (store/durable-file.ts)
//   --redis                 two sets per list in Redis, shared by every instance (redis-entry-edits.ts)
//
// The edits lie over the configuration rather than replacing it: the list's inline entries are
// (configured − removed) ∪ added, so that a configuration edited later still counts. Adding an expression
// takes it out of `removed`, removing one takes it out of `added`: the two never share one.

import { join } from 'node:path';
import { makeFolder, writeFileDurably } from '../../store/durable-file.ts';
import { readRegularFile } from '../../store/regular-file.ts';
import { quotedExcerpt } from './formats/excerpt.ts';

/** Canonical expressions (SB-6) added and removed, each sorted, no expression in both. */
export interface EntryEdits {
  added: string[];
  removed: string[];
}

export const NO_EDITS: EntryEdits = { added: [], removed: [] };

/** Edits one list may hold, added and removed together: an operator's hand-kept entries, not a feed (a file source is). */
export const MAX_EDITS_PER_LIST = 100_000;

/**
 * The most a list's edits take, read back: MAX_EDITS_PER_LIST of the 4,096 characters an edit may have,
 * as JSON in a file of a data folder, as the sets' members in Redis.
 */
export const MAX_EDITS_BYTES = 512 * 1024 * 1024;

/**
 * What every canonical expression is (SB-5, SB-6): printable ASCII, without a space or `#` (SB-5 escapes
 * both), a host, then a path from `/`.
 */
const EXPRESSION_FORM = /^[!"$-.0-~]+\/[!"$-~]*$/;

/** What an update answers when the list would hold more than its cap of edits: nothing was changed. */
type TooManyEdits = 'too-many';

/** Where edits are kept, and for how long, in words for the operator: `memory`, `data folder`, `redis`. */
export type EditKeeping = 'memory' | 'data folder' | 'redis';

export interface EntryEditStore {
  readonly keeping: EditKeeping;
  /** The edits of `list`; none when it has none. */
  read(list: string): Promise<EntryEdits>;
  /**
   * Adds `add`, then removes `remove` (an expression in both ends up removed); resolves to the edits now,
   * or to `too-many`, changing nothing, when the list would then hold more than `maxEdits` edits. The cap
   * is checked in the same step as the write: concurrent updates near it cannot all pass.
   */
  update(list: string, add: readonly string[], remove: readonly string[], maxEdits?: number): Promise<EntryEdits | TooManyEdits>;
}

/** `edits` after adding `add`, then removing `remove`. */
export function editedEntries(edits: EntryEdits, add: readonly string[], remove: readonly string[]): EntryEdits {
  const added = new Set(edits.added);
  const removed = new Set(edits.removed);
  for (const expression of add) {
    added.add(expression);
    removed.delete(expression);
  }
  for (const expression of remove) {
    removed.add(expression);
    added.delete(expression);
  }
  return { added: [...added].sort(), removed: [...removed].sort() };
}

/**
 * Why `edits`, read back from where they are kept, are not edits sbkit writes; undefined when they are:
 * at most MAX_EDITS_PER_LIST, each of the form of a canonical expression, none both added and removed.
 */
export function editsProblem(edits: EntryEdits): string | undefined {
  const count = edits.added.length + edits.removed.length;
  if (count > MAX_EDITS_PER_LIST) return tooManyEdits(count);
  const malformed = [...edits.added, ...edits.removed].find((edit) => !EXPRESSION_FORM.test(edit));
  if (malformed !== undefined) return `${quotedExcerpt(malformed)}, which is no canonical expression`;
  const added = new Set(edits.added);
  const both = edits.removed.find((edit) => added.has(edit));
  return both === undefined ? undefined : `${quotedExcerpt(both)} both added and removed`;
}

/** The problem of `count` edits kept for one list, over MAX_EDITS_PER_LIST. */
export function tooManyEdits(count: number): string {
  return `${count} edits, more than the ${MAX_EDITS_PER_LIST} a list may hold`;
}

/** Whether `edits` hold more than `maxEdits` edits, added and removed together. */
function overCap(edits: EntryEdits, maxEdits: number): boolean {
  return edits.added.length + edits.removed.length > maxEdits;
}

/** Edits in this process's memory: they last until it stops. */
export function memoryEntryEdits(): EntryEditStore {
  const byList = new Map<string, EntryEdits>();
  return {
    keeping: 'memory',
    read: async (list) => byList.get(list) ?? NO_EDITS,
    update: async (list, add, remove, maxEdits = MAX_EDITS_PER_LIST) => {
      // No await between the read and the write: the check and the change are one step.
      const next = editedEntries(byList.get(list) ?? NO_EDITS, add, remove);
      if (overCap(next, maxEdits)) return 'too-many';
      byList.set(list, next);
      return next;
    },
  };
}

/** The file of a list's edits in a data folder. */
export function editsFileName(list: string): string {
  return `${list}.entries.json`;
}

/**
 * Edits kept in a data folder (`--data`), one JSON file per list, `{"list", "added", "removed"}`,
 * replaced durably at each update. A file that cannot be read as such rejects: the list's edits are
 * not silently forgotten.
 */
export async function diskEntryEdits(directory: string): Promise<EntryEditStore> {
  await makeFolder(directory);
  const pathOf = (list: string) => join(directory, editsFileName(list));
  const read = async (list: string): Promise<EntryEdits> => {
    let text: string;
    try {
      // Regular, no link, bounded (store/regular-file.ts): a FIFO or /dev/zero in its place cannot hang a publication.
      text = (await readRegularFile(pathOf(list), MAX_EDITS_BYTES)).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_EDITS;
      throw error;
    }
    const parsed = JSON.parse(text) as Partial<EntryEdits> & { list?: unknown };
    const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
    if (parsed.list !== list || !strings(parsed.added) || !strings(parsed.removed)) {
      throw new Error(`${pathOf(list)} is not a file of ${list}'s entry edits`);
    }
    return { added: parsed.added, removed: parsed.removed };
  };
  // Updates of one list run one at a time: each reads what the one before wrote.
  const queues = new Map<string, Promise<unknown>>();
  return {
    keeping: 'data folder',
    read,
    update: (list, add, remove, maxEdits = MAX_EDITS_PER_LIST) => {
      const next = (queues.get(list) ?? Promise.resolve())
        .catch(() => undefined)
        .then(async () => {
          // Checked in the update's turn, against what the update before it wrote.
          const edits = editedEntries(await read(list), add, remove);
          if (overCap(edits, maxEdits)) return 'too-many';
          await writeFileDurably(pathOf(list), Buffer.from(`${JSON.stringify({ list, ...edits })}\n`));
          return edits;
        });
      queues.set(list, next);
      return next;
    },
  };
}
