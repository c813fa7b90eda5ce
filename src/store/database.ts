import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checksumOf, hashBytes, hashesFromBytes, HashList } from './hash-list.ts';

/**
 * The local database (SB-9): a folder with one file per list. A file holds
 *
 *   magic "SBKITHL1" · width u8 · count u32 · version length u32 · updated-at ms f64 · checksum (32 bytes)
 *   · version bytes · count × width bytes of sorted big-endian hashes
 *
 * all little-endian but the hashes. Files are written to a temporary name, synced, renamed over the old
 * one, and the folder is synced, so a crash leaves either the old file or the new one. On open every
 * file's checksum is recomputed; a damaged file is removed and reported, never trusted, and the list is
 * then fetched again in full. The versions are opaque bytes, so a database written while talking v4
 * (whose `new_client_state` is stored as the version) keeps working under v5 (SB-14).
 */
const MAGIC = Buffer.from('SBKITHL1', 'latin1');
const HEADER_BYTES = MAGIC.length + 1 + 4 + 4 + 8 + 32;
const EXTENSION = '.sbl';
const TEMP_MARK = '.tmp-';
/** List names become file names: only a safe alphabet, so a hostile name cannot leave the folder. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface StoredList {
  list: HashList;
  /** When the list was last updated successfully, ms since the epoch. */
  updatedAt: number;
}

/** Why a file was not loaded. */
export class DatabaseFileError extends Error {
  override readonly name = 'DatabaseFileError';

  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`database file ${file} is damaged (${detail}); it was removed and the list will be fetched again`);
  }
}

export function isSafeListName(name: string): boolean {
  return SAFE_NAME.test(name);
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
  Buffer.from(list.checksum).copy(header, offset);
  return Buffer.concat([header, list.version, hashes]);
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
  if (data.length !== HEADER_BYTES + versionLength + count * width) throw damaged('its length does not match its header');
  const version = Uint8Array.prototype.slice.call(data.subarray(offset, offset + versionLength));
  offset += versionLength;
  const hashes = hashesFromBytes(width, data.subarray(offset));
  if (!Buffer.from(checksumOf(hashes)).equals(checksum)) throw damaged('checksum mismatch');
  try {
    return { list: HashList.fromSorted(name, version, hashes, checksum), updatedAt };
  } catch (err) {
    throw damaged((err as Error).message);
  }
}

export class LocalDatabase {
  private readonly lists = new Map<string, StoredList>();

  private constructor(readonly directory: string) {}

  /**
   * Opens (creating if needed) the database folder and loads every list in it. Damaged files and
   * leftovers of interrupted writes are removed; each damaged file is reported through `onDamaged`.
   */
  static async open(directory: string, onDamaged: (error: DatabaseFileError) => void = () => {}): Promise<LocalDatabase> {
    await mkdir(directory, { recursive: true });
    const db = new LocalDatabase(directory);
    for (const entry of await readdir(directory)) {
      const file = join(directory, entry);
      if (entry.includes(TEMP_MARK)) {
        await rm(file, { force: true });
        continue;
      }
      if (!entry.endsWith(EXTENSION)) continue;
      const name = entry.slice(0, -EXTENSION.length);
      try {
        if (!isSafeListName(name)) throw new DatabaseFileError(file, 'not a list name');
        db.lists.set(name, decodeFile(name, file, await readFile(file)));
      } catch (err) {
        if (!(err instanceof DatabaseFileError)) throw err;
        onDamaged(err);
        await rm(file, { force: true });
      }
    }
    return db;
  }

  get(name: string): StoredList | undefined {
    return this.lists.get(name);
  }

  all(): StoredList[] {
    return [...this.lists.values()].sort((a, b) => a.list.name.localeCompare(b.list.name));
  }

  /** Stores a list durably: temporary file, fsync, rename, fsync of the folder. */
  async save(list: HashList, updatedAt: number): Promise<void> {
    if (!isSafeListName(list.name)) throw new RangeError(`"${list.name}" cannot be stored: list names are short ASCII words`);
    const target = join(this.directory, list.name + EXTENSION);
    const temp = `${target}${TEMP_MARK}${process.pid}-${Math.random().toString(36).slice(2)}`;
    const stored = { list, updatedAt };
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(encodeFile(stored));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    await this.syncDirectory();
    this.lists.set(list.name, stored);
  }

  /** Forgets a list (SB-9: after a failed update it is fetched again from scratch). */
  async drop(name: string): Promise<void> {
    if (!this.lists.delete(name)) return;
    await rm(join(this.directory, name + EXTENSION), { force: true });
    await this.syncDirectory();
  }

  private async syncDirectory(): Promise<void> {
    const dir = await open(this.directory, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}
