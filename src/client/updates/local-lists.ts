// The lists this client holds: each one's hashes and when it was last stored, in memory and in the
// database when there is one (a folder, IndexedDB). What to ask for and when is the list updater's
// (list-updater.ts); this room only keeps what the updates brought, or drops it (SB-9).

import { DatabaseFileError, type ListStore } from '../../store/list-store.ts';
import { HashList } from '../../store/hash-list.ts';
import { type HashWidth, widthOfListName } from '../../lists/list-name.ts';
import { hexOfBytes } from '../../url/hash-string.ts';
import { encodeBase64 } from '../../wire/base64.ts';
import { type UpdateError, updateErrorOf } from '../client-errors.ts';
import type { ClientEvent } from '../options.ts';
import type { ListState } from '../transport/transport.ts';

/** One local list as {@link SafeBrowsingClient.listInfo} describes it. */
export interface ListInfo {
  /** The list's v5 name, e.g. `se-4b`. */
  name: string;
  /** Opaque version bytes, base64; empty before the first update. */
  version: string;
  /** Bytes per stored hash: 4, 8, 16 or 32 (the name's `-4b`… suffix). */
  width: HashWidth;
  /** Hashes or hash prefixes held. */
  entries: number;
  /** SHA-256 of the sorted entries (SB-9), hex. */
  checksum: string;
  /** ms since the epoch of the last successful update, undefined when never updated. */
  updatedAt: number | undefined;
}

/** The width a list's hashes have: what its name says (`-4b`… `-32b`), 4 bytes when it says nothing. */
function widthOfName(name: string): HashWidth {
  return widthOfListName(name) ?? 4;
}

export class LocalLists {
  private readonly lists = new Map<string, HashList>();
  private readonly updatedAt = new Map<string, number>();
  private database: ListStore | undefined;

  /**
   * @param names every list kept, each empty until loaded or updated.
   * @param emit where a damaged file and a dropped list are told.
   */
  constructor(
    private readonly names: readonly string[],
    private readonly emit: (event: ClientEvent) => void,
  ) {
    for (const name of names) this.lists.set(name, HashList.empty(name, widthOfName(name)));
  }

  /**
   * Takes the lists a database holds (a file of the wrong width is reported and fetched again), and
   * stores every later list there. Resolves to the names of the lists taken.
   */
  load(database: ListStore): string[] {
    this.database = database;
    const taken: string[] = [];
    for (const name of this.names) {
      const stored = database.get(name);
      if (stored === undefined) continue;
      const width = widthOfName(name);
      if (stored.list.width !== width) {
        // Not this list's width: fetched again in full, which then replaces the file.
        this.emit({
          type: 'damaged-file',
          error: new DatabaseFileError(database.fileOf(name), `it holds ${stored.list.width}-byte hashes, the list ${width}-byte ones`),
        });
        continue;
      }
      this.lists.set(name, stored.list);
      this.updatedAt.set(name, stored.updatedAt);
      taken.push(name);
    }
    return taken;
  }

  /** A local list as it stands. */
  list(name: string): HashList | undefined {
    return this.lists.get(name);
  }

  /** When the list was last stored, ms since the epoch; undefined when it never was (or was dropped since). */
  storedAt(name: string): number | undefined {
    return this.updatedAt.get(name);
  }

  /** The lists' names, versions and widths, as a request names them. */
  listStates(names: readonly string[]): ListState[] {
    return names.map((name) => {
      const list = this.lists.get(name)!;
      return { name, version: list.version, width: list.width };
    });
  }

  listInfo(): ListInfo[] {
    return this.names.map((name) => {
      const list = this.lists.get(name)!;
      return {
        name,
        version: encodeBase64(list.version),
        width: list.width,
        entries: list.size,
        checksum: hexOfBytes(list.checksum),
        updatedAt: this.updatedAt.get(name),
      };
    });
  }

  /** Time since the oldest list was last updated; undefined while any list never was. */
  updateLagMs(now: number): number | undefined {
    const times = this.names.map((name) => this.updatedAt.get(name));
    if (times.length === 0 || times.includes(undefined)) return undefined;
    return now - Math.min(...(times as number[]));
  }

  /**
   * Keeps `list` as it stands after an update answered at `at`: in the database first, so that memory
   * never holds a version the database lacks. Rejects when it cannot be stored: the old list stays, in
   * memory as on disk, so that the version asked for next is the one kept.
   */
  async store(list: HashList, at: number): Promise<void> {
    await this.database?.save(list, at);
    this.lists.set(list.name, list);
    this.updatedAt.set(list.name, at);
  }

  /**
   * SB-9: a list that failed to update is dropped and fetched again from scratch, at the width its name
   * gives. Resolves to the error when its file could not be removed.
   */
  async drop(name: string, error: Error): Promise<UpdateError | undefined> {
    this.lists.set(name, HashList.empty(name, widthOfName(name)));
    this.updatedAt.delete(name);
    this.emit({ type: 'list-dropped', list: name, error });
    try {
      await this.database?.drop(name);
      return undefined;
    } catch (err) {
      return updateErrorOf(err);
    }
  }
}
