import { listNameProblem, listNameReason } from '../lists/list-name.ts';
import { sha256Portable } from '../url/sha256.ts';
import { checksumOf, hashBytes, hashesFromBytes, HashList } from './hash-list.ts';
import { DatabaseFileError, DatabaseStorageError, type ListStore, STATE_IGNORED, type StoredList } from './list-store.ts';

// The few parts of IndexedDB used here, declared for TypeScript without the DOM library.
interface IdbRequest<T> {
  result: T;
  error: Error | null;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null;
  onblocked: (() => void) | null;
}
interface IdbObjectStore {
  put(value: unknown, key?: string): IdbRequest<unknown>;
  get(key: string): IdbRequest<unknown>;
  getAll(): IdbRequest<unknown[]>;
  delete(key: string): IdbRequest<undefined>;
}
interface IdbTransaction {
  objectStore(name: string): IdbObjectStore;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  error: Error | null;
}
interface IdbDatabase {
  objectStoreNames: { contains(name: string): boolean };
  createObjectStore(name: string, options?: { keyPath: string }): IdbObjectStore;
  transaction(stores: string[], mode: 'readonly' | 'readwrite'): IdbTransaction;
  close(): void;
  onversionchange: (() => void) | null;
}
/** The `indexedDB` global of browsers, extensions' service workers and Web Workers. */
export interface IdbFactory {
  open(name: string, version: number): IdbOpenRequest;
}

const LISTS = 'lists';
const STATE = 'state';
const STATE_KEY = 'client-state';

/** A list as IndexedDB keeps it: structured-cloned, so bytes stay bytes. */
interface ListRecord {
  name: string;
  width: number;
  version: Uint8Array;
  hashes: Uint8Array;
  checksum: Uint8Array;
  updatedAt: number;
}

function settled<T>(request: IdbRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

function committed(tx: IdbTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

function decodeRecord(value: unknown, where: (name: string) => string): StoredList {
  const record = value as Partial<ListRecord> | null;
  const name = typeof record?.name === 'string' ? record.name : '?';
  const damaged = (detail: string) => new DatabaseFileError(where(name), detail);
  if (
    record === null ||
    typeof record !== 'object' ||
    !(record.version instanceof Uint8Array) ||
    !(record.hashes instanceof Uint8Array) ||
    !(record.checksum instanceof Uint8Array) ||
    typeof record.updatedAt !== 'number'
  )
    throw damaged('not an sbkit list record');
  const problem = listNameProblem(name);
  if (problem !== undefined) throw damaged(listNameReason(name, problem));
  const width = record.width;
  if (width !== 4 && width !== 8 && width !== 16 && width !== 32) throw damaged(`hash width ${String(width)}`);
  if (record.hashes.length % width !== 0) throw damaged('its hashes are not whole');
  // SB-9: never trust stored hashes whose checksum does not hold; the list is then fetched again.
  const hashes = hashesFromBytes(width, record.hashes);
  const checksum = checksumOf(hashes, sha256Portable);
  if (checksum.length !== record.checksum.length || checksum.some((byte, i) => byte !== record.checksum![i]))
    throw damaged('checksum mismatch');
  try {
    return { list: HashList.fromSorted(name, record.version, hashes, checksum), updatedAt: record.updatedAt };
  } catch (err) {
    throw damaged((err as Error).message);
  }
}

/**
 * The local database in IndexedDB, for browsers and extensions: one record per list, checked against its
 * SB-9 checksum when the store opens (a damaged one is reported, removed and fetched again), and the
 * client state beside them. A record is written in one transaction: whole or not at all.
 */
export class IndexedDbListStore implements ListStore {
  readonly readOnly = false;
  private readonly lists = new Map<string, StoredList>();

  private constructor(
    private readonly db: IdbDatabase,
    readonly databaseName: string,
  ) {}

  get stateFile(): string {
    return `indexeddb:${this.databaseName}/${STATE_KEY}`;
  }

  fileOf(name: string): string {
    return `indexeddb:${this.databaseName}/${name}`;
  }

  /**
   * Opens (creating if needed) the IndexedDB database `name` and loads every list in it; damaged records
   * are removed and reported through `onDamaged`. Rejects with DatabaseStorageError when IndexedDB
   * cannot be used (private windows of some browsers, storage turned off).
   */
  static async open(
    name: string,
    options: { onDamaged?: (error: DatabaseFileError) => void; indexedDB?: IdbFactory } = {},
  ): Promise<IndexedDbListStore> {
    const factory = options.indexedDB ?? (globalThis as { indexedDB?: IdbFactory }).indexedDB;
    const where = `indexeddb:${name}`;
    if (factory === undefined) throw new DatabaseStorageError(where, 'open IndexedDB', new Error('this runtime has no indexedDB'));
    let db: IdbDatabase;
    try {
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => {
        const created = request.result;
        if (!created.objectStoreNames.contains(LISTS)) created.createObjectStore(LISTS, { keyPath: 'name' });
        if (!created.objectStoreNames.contains(STATE)) created.createObjectStore(STATE);
      };
      // A blocked open waits for other connections to close; it settles by neither success nor error.
      const blocked = new Promise<never>((_resolve, reject) => {
        request.onblocked = () =>
          reject(new Error('another tab or worker keeps this database open at an older version; close it and try again'));
      });
      db = await Promise.race([settled(request), blocked]);
      // A newer version opened elsewhere (another tab after an upgrade) waits for this connection to close.
      db.onversionchange = () => db.close();
    } catch (err) {
      throw new DatabaseStorageError(where, 'open IndexedDB', err);
    }
    const store = new IndexedDbListStore(db, name);
    let records: unknown[];
    try {
      records = await settled(db.transaction([LISTS], 'readonly').objectStore(LISTS).getAll());
    } catch (err) {
      throw new DatabaseStorageError(where, 'read the lists', err);
    }
    for (const record of records) {
      try {
        const stored = decodeRecord(record, (list) => store.fileOf(list));
        store.lists.set(stored.list.name, stored);
      } catch (err) {
        if (!(err instanceof DatabaseFileError)) throw err;
        options.onDamaged?.(err);
        const key = (record as { name?: unknown } | null)?.name;
        if (typeof key === 'string') await store.remove(key, `remove the damaged list ${key}`);
      }
    }
    return store;
  }

  get(name: string): StoredList | undefined {
    return this.lists.get(name);
  }

  all(): StoredList[] {
    return [...this.lists.values()].sort((a, b) => a.list.name.localeCompare(b.list.name));
  }

  async save(list: HashList, updatedAt: number): Promise<void> {
    const record: ListRecord = {
      name: list.name,
      width: list.width,
      version: list.version,
      hashes: hashBytes(list.sortedHashes()),
      checksum: list.checksum,
      updatedAt,
    };
    await this.write(LISTS, (store) => store.put(record), `save list ${list.name}`);
    this.lists.set(list.name, { list, updatedAt });
  }

  async drop(name: string): Promise<void> {
    if (!this.lists.delete(name)) return;
    await this.remove(name, `drop list ${name}`);
  }

  async readState(): Promise<unknown> {
    let text: unknown;
    try {
      text = await settled(this.db.transaction([STATE], 'readonly').objectStore(STATE).get(STATE_KEY));
    } catch (err) {
      throw new DatabaseFileError(this.stateFile, `unreadable: ${(err as Error).message}`, STATE_IGNORED);
    }
    if (text === undefined) return undefined;
    try {
      if (typeof text !== 'string') throw new TypeError('not text');
      return JSON.parse(text) as unknown;
    } catch {
      throw new DatabaseFileError(this.stateFile, 'not JSON', STATE_IGNORED);
    }
  }

  async writeState(state: unknown): Promise<void> {
    const text = JSON.stringify(state);
    await this.write(STATE, (store) => store.put(text, STATE_KEY), 'save the client state');
  }

  /** Closes the connection; the store is not used afterwards. */
  close(): void {
    this.db.close();
  }

  private remove(name: string, action: string): Promise<void> {
    return this.write(LISTS, (store) => store.delete(name), action);
  }

  private async write(storeName: string, change: (store: IdbObjectStore) => unknown, action: string): Promise<void> {
    try {
      const tx = this.db.transaction([storeName], 'readwrite');
      change(tx.objectStore(storeName));
      await committed(tx);
    } catch (err) {
      throw new DatabaseStorageError(`indexeddb:${this.databaseName}`, action, err);
    }
  }
}
