import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { listNameProblem, listNameReason } from '../lists/list-name.ts';
import { nodeSha256 } from '../url/hash.ts';
import { makeWritableFolder, syncDirectory, targetOfTemporary, writeFileDurably } from './durable-file.ts';
import { readRegularFile } from './regular-file.ts';
import { checksumOf, hashBytes, hashesFromBytes, HashList } from './hash-list.ts';
import { DatabaseFileError, DatabaseStorageError, type ListStore, STATE_IGNORED, type StoredList } from './list-store.ts';

/**
 * The local database (SB-9): a folder with one file per list. A file holds
 *
 *   magic "SBKITHL1" · width u8 · count u32 · version length u32 · updated-at ms f64 · checksum (32 bytes)
 *   · header digest (8 bytes) · version bytes · count × width bytes of sorted big-endian hashes
 *
 * all little-endian but the hashes. The list checksum (SB-9) covers the hashes; the header digest, the
 * first 8 bytes of a SHA-256 over the header fields and the version, covers the rest, so that a damaged
 * version is never sent to a server. Files are written to a temporary name, synced, renamed over the old
 * one, and the folder is synced, so a crash leaves either the old file or the new one. On open every
 * file's checksum is recomputed; a damaged file is removed and reported, never trusted, and the list is
 * then fetched again in full. The versions are opaque bytes, so a database written while talking v4
 * (whose `new_client_state` is stored as the version) keeps working under v5 (SB-14). Opened read-only
 * (for people inspecting it), the folder is never changed: damaged files are reported and left alone.
 */
const MAGIC = Buffer.from('SBKITHL1', 'latin1');
const DIGEST_BYTES = 8;
const HEADER_BYTES = MAGIC.length + 1 + 4 + 4 + 8 + 32 + DIGEST_BYTES;
const EXTENSION = '.sbl';
const STATE_FILE = 'client-state.json';
/**
 * The most bytes read of one file, so that a file swapped into the folder (a link to /dev/zero, a FIFO,
 * something huge) is refused rather than read for ever (store/regular-file.ts). A list file holds at most
 * 2^25 hashes of up to 32 bytes (the client takes at most `maxListEntries`, 2^24 by default) and its
 * version; the client state is a few kilobytes.
 */
const MAX_LIST_FILE_BYTES = 2 ** 30 + 2 ** 20;
const MAX_STATE_FILE_BYTES = 2 ** 24;
export interface OpenOptions {
  /** Called for each file that was not loaded (damaged, unreadable, not a list). */
  onDamaged?: (error: DatabaseFileError) => void;
  /** Look, do not touch: no folder is created, nothing is removed, and every write is refused. */
  readOnly?: boolean;
}

function encodeFile(stored: StoredList): Buffer {
  const { list } = stored;
  const hashes = hashBytes(list.sortedHashes());
  const header = Buffer.alloc(HEADER_BYTES);
  let offset = MAGIC.copy(header, 0);
  offset = header.writeUInt8(list.width, offset);
  offset = header.writeUInt32LE(list.size, offset);
  offset = header.writeUInt32LE(list.version.length, offset);
  offset = header.writeDoubleLE(stored.updatedAt, offset);
  offset += Buffer.from(list.checksum).copy(header, offset);
  headerDigest(header.subarray(0, offset), list.version).copy(header, offset);
  return Buffer.concat([header, list.version, hashes]);
}

function headerDigest(fields: Uint8Array, version: Uint8Array): Buffer {
  return createHash('sha256').update(fields).update(version).digest().subarray(0, DIGEST_BYTES);
}

function decodeFile(name: string, file: string, data: Buffer): StoredList {
  const damaged = (detail: string) => new DatabaseFileError(file, detail);
  if (data.length < HEADER_BYTES || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw damaged('not an sbkit list file');
  let offset = MAGIC.length;
  const width = data.readUInt8(offset);
  offset += 1;
  if (width !== 4 && width !== 8 && width !== 16 && width !== 32) throw damaged(`hash width ${width}`);
  const count = data.readUInt32LE(offset);
  offset += 4;
  const versionLength = data.readUInt32LE(offset);
  offset += 4;
  const updatedAt = data.readDoubleLE(offset);
  offset += 8;
  const checksum = Uint8Array.prototype.slice.call(data.subarray(offset, offset + 32));
  offset += 32;
  const digest = data.subarray(offset, offset + DIGEST_BYTES);
  offset += DIGEST_BYTES;
  if (data.length !== HEADER_BYTES + versionLength + count * width) throw damaged('its length does not match its header');
  const version = Uint8Array.prototype.slice.call(data.subarray(offset, offset + versionLength));
  offset += versionLength;
  if (!headerDigest(data.subarray(0, HEADER_BYTES - DIGEST_BYTES), version).equals(digest)) throw damaged('header digest mismatch');
  const hashes = hashesFromBytes(width, data.subarray(offset));
  if (!Buffer.from(checksumOf(hashes, nodeSha256)).equals(checksum)) throw damaged('checksum mismatch');
  try {
    return { list: HashList.fromSorted(name, version, hashes, checksum), updatedAt };
  } catch (err) {
    throw damaged((err as Error).message);
  }
}

export { DatabaseFileError, DatabaseStorageError, type StoredList } from './list-store.ts';

/** The local database on a file system, Node's {@link ListStore}. */
export class LocalDatabase implements ListStore {
  private readonly lists = new Map<string, StoredList>();

  private constructor(
    readonly directory: string,
    readonly readOnly: boolean,
  ) {}

  /**
   * Opens (creating if needed) the database folder and loads every list in it. Damaged files and
   * leftovers of interrupted writes are removed (read-only: left alone); each damaged file is reported
   * through `onDamaged`. Rejects with DatabaseStorageError when the folder cannot be used at all.
   */
  static async open(directory: string, options: OpenOptions = {}): Promise<LocalDatabase> {
    const { onDamaged = () => {}, readOnly = false } = options;
    const db = new LocalDatabase(directory, readOnly);
    let entries: Dirent[];
    try {
      if (!readOnly) await makeWritableFolder(directory);
      entries = await readdir(directory, { withFileTypes: true });
    } catch (err) {
      // Read-only, a folder that does not exist yet is an empty database.
      if (readOnly && (err as NodeJS.ErrnoException).code === 'ENOENT') return db;
      throw new DatabaseStorageError(
        directory,
        readOnly ? 'read the folder' : 'create, read or write the folder',
        err,
        `choose a folder this user may ${readOnly ? 'read' : 'write'}`,
      );
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = join(directory, entry.name);
      // Leftovers of a write that crashed before its rename; the database has one writer at a time.
      if (targetOfTemporary(entry.name) !== undefined) {
        if (!readOnly) await db.remove(file);
        continue;
      }
      if (!entry.name.endsWith(EXTENSION)) continue;
      const name = entry.name.slice(0, -EXTENSION.length);
      let data: Buffer;
      try {
        data = await readRegularFile(file, MAX_LIST_FILE_BYTES);
      } catch (err) {
        // Unreadable (permissions, I/O, a link, FIFO or oversized file swapped in since the listing): reported and left alone.
        onDamaged(new DatabaseFileError(file, `unreadable: ${(err as Error).message}`));
        continue;
      }
      try {
        // List names become file names: only the list-name grammar, so a hostile name cannot leave the folder.
        const problem = listNameProblem(name);
        if (problem !== undefined) throw new DatabaseFileError(file, listNameReason(name, problem));
        db.lists.set(name, decodeFile(name, file, data));
      } catch (err) {
        if (!(err instanceof DatabaseFileError)) throw err;
        onDamaged(err);
        if (!readOnly) await db.remove(file);
      }
    }
    return db;
  }

  /**
   * What `directory` is, looked at without a change: `missing`, `not-a-folder`, `empty` (none of a
   * database's files, no list and no client state), or `database`. Rejects with DatabaseStorageError
   * when the folder cannot be read.
   */
  static async inspect(directory: string): Promise<'missing' | 'not-a-folder' | 'empty' | 'database'> {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return 'missing';
      if (code === 'ENOTDIR') return 'not-a-folder';
      throw new DatabaseStorageError(directory, 'read the folder', err);
    }
    return entries.some((entry) => entry.isFile() && (entry.name.endsWith(EXTENSION) || entry.name === STATE_FILE)) ? 'database' : 'empty';
  }

  /** The file that holds a list. */
  fileOf(name: string): string {
    return join(this.directory, name + EXTENSION);
  }

  /** The file that holds the client state. */
  get stateFile(): string {
    return join(this.directory, STATE_FILE);
  }

  get(name: string): StoredList | undefined {
    return this.lists.get(name);
  }

  all(): StoredList[] {
    return [...this.lists.values()].sort((a, b) => a.list.name.localeCompare(b.list.name));
  }

  /** Stores a list durably: temporary file, fsync, rename, fsync of the folder. Rejects with DatabaseStorageError. */
  async save(list: HashList, updatedAt: number): Promise<void> {
    const problem = listNameProblem(list.name);
    if (problem !== undefined) throw new RangeError(`list not stored: ${listNameReason(list.name, problem)}`);
    const stored = { list, updatedAt };
    await this.writeDurably(this.fileOf(list.name), encodeFile(stored), `save list ${list.name}`);
    this.lists.set(list.name, stored);
  }

  private async writeDurably(target: string, data: Uint8Array, action: string): Promise<void> {
    if (this.readOnly) throw new DatabaseStorageError(this.directory, action, new Error('the database was opened read-only'));
    try {
      await writeFileDurably(target, data);
    } catch (err) {
      // ENOSPC, EIO, ENOTDIR…: the old file stays as it was, and no temporary file is left behind.
      throw new DatabaseStorageError(this.directory, action, err);
    }
  }

  /**
   * Small client state kept beside the lists (the request schedule, so that waits outlive restarts):
   * undefined when there is none, DatabaseFileError when the file cannot be read or is not JSON.
   */
  async readState(): Promise<unknown> {
    const file = this.stateFile;
    let text: string;
    try {
      text = (await readRegularFile(file, MAX_STATE_FILE_BYTES)).toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new DatabaseFileError(file, `unreadable: ${(err as Error).message}`, STATE_IGNORED);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new DatabaseFileError(file, 'not JSON', STATE_IGNORED);
    }
  }

  /** Replaces the client state durably; rejects with DatabaseStorageError. */
  async writeState(state: unknown): Promise<void> {
    await this.writeDurably(this.stateFile, Buffer.from(JSON.stringify(state)), 'save the client state');
  }

  /** Nothing to let go: every file is opened and closed by the call that uses it. */
  close(): void {}

  /** Forgets a list (SB-9: after a failed update it is fetched again from scratch). Rejects with DatabaseStorageError. */
  async drop(name: string): Promise<void> {
    if (this.readOnly) throw new DatabaseStorageError(this.directory, `drop list ${name}`, new Error('the database was opened read-only'));
    if (!this.lists.delete(name)) return;
    try {
      await rm(this.fileOf(name), { force: true });
      await syncDirectory(this.directory);
    } catch (err) {
      throw new DatabaseStorageError(this.directory, `drop list ${name}`, err);
    }
  }

  private async remove(file: string): Promise<void> {
    try {
      await rm(file, { force: true });
    } catch (err) {
      throw new DatabaseStorageError(this.directory, `remove ${file}`, err);
    }
  }
}
