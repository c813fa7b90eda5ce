// The files of a list history kept on disk (`sbkit serve --data DIR`, disk-snapshot-store.ts): what they
// are called and what is in them. Every file carries a SHA-256 of its content, so that damage (a torn
// disk, a bit flipped, a hand edit) is found when it is read and the file is never served.
//
// For a list `name`, in DIR:
//   name.history          the index: the versions kept, oldest first, the last the current one
//   name.<id>.full        a version's sorted full hashes (the current one's: searches need them)
//   name.<id>.served      a version's served hashes (older ones: all a diff from them needs)
//
// The index is a line `sbkit list history 1 <SHA-256 of the rest, hex>`, then JSON:
//   {"list": name, "hashLength": 4, "kind": "full" | "served",
//    "versions": [{"id": 32 hex digits, "createdAt": ms, "holds": "full" | "served", "checksum": 64 hex digits}, …]}
// A version's `checksum` is SB-9's, the SHA-256 of its served hashes: what checks an older version of a
// list of full hashes, whose id (derived from full hashes no longer kept) cannot. Indexes written before
// it was added lack it.
// `kind` is the snapshots' (Snapshot.kind: a list of full hashes, or a proxy's mirror of served ones).
//
// A version file is a 72-byte header, then its hashes (big-endian, sorted, concatenated):
//   magic "SBKITSN1" · holds u8 (1 full, 2 served) · kind u8 (1 full, 2 served) · width u8 · 0 u8
//   · count u32 LE · createdAt f64 LE · id (16 bytes) · SHA-256 of the 40 bytes before it and the hashes
// The header is a multiple of 8 bytes, so that the hashes read from a file are aligned for sorting.

import { createHash } from 'node:crypto';
import type { HashWidth } from '../../lists/list-name.ts';
import { SNAPSHOT_ID_BYTES } from './snapshot.ts';

/** What a version file holds: full hashes (the current version of a list of full hashes) or served hashes. */
export type Holds = 'full' | 'served';
/** The kind of a list's snapshots (Snapshot.kind). */
export type SnapshotKind = 'full' | 'served';

/** One kept version, as the index names it. */
export interface IndexedVersion {
  /** The snapshot id: 32 hex digits. */
  id: string;
  /** When it was published, ms since the epoch. */
  createdAt: number;
  holds: Holds;
  /** SB-9's checksum of its served hashes, 64 hex digits; absent in indexes written by earlier sbkit versions. */
  checksum?: string;
}

/** A list's index: its versions, oldest first, the last the current one. */
export interface HistoryIndex {
  list: string;
  hashLength: HashWidth;
  kind: SnapshotKind;
  versions: IndexedVersion[];
}

/** A version file, read and checked. */
export interface VersionFile {
  holds: Holds;
  kind: SnapshotKind;
  width: number;
  createdAt: number;
  id: string;
  /** The hashes, sorted and concatenated: a view into the file's bytes. */
  hashes: Uint8Array;
}

/** Why a file of a history cannot be used: it is then reported and skipped, never served. */
export class DamagedFile extends Error {}

const INDEX_HEADER = 'sbkit list history 1 ';
const MAGIC = Buffer.from('SBKITSN1', 'latin1');
const DIGEST_BYTES = 32;
const FIELD_BYTES = MAGIC.length + 4 + 4 + 8 + SNAPSHOT_ID_BYTES;
const HEADER_BYTES = FIELD_BYTES + DIGEST_BYTES;
const HOLDS_CODES: readonly Holds[] = ['full', 'served'];

/**
 * Bounds on the files of a history, checked before one is read (store/regular-file.ts): what sbkit
 * writes stays far below them, a file put there in its place cannot make the start read without end.
 * An index takes about 100 bytes per kept version; a version at most 2^25 hashes, twice the entries a
 * client takes of one list (maxListEntries), 1 GiB of full hashes.
 */
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;
const MAX_VERSION_HASHES = 2 ** 25;
export const MAX_VERSION_FILE_BYTES = HEADER_BYTES + MAX_VERSION_HASHES * 32;
const ID = /^[0-9a-f]{32}$/;
const CHECKSUM = /^[0-9a-f]{64}$/;

/** The index file of a list. */
export function indexFileName(list: string): string {
  return `${list}.history`;
}

/** The file of one version of a list. */
export function versionFileName(list: string, id: string, holds: Holds): string {
  return `${list}.${id}.${holds}`;
}

/** True for the name of a version file of `list` (and of no other list: ids are exactly 32 hex digits). */
export function isVersionFileOf(list: string, fileName: string): boolean {
  if (!fileName.startsWith(`${list}.`)) return false;
  const rest = fileName.slice(list.length + 1);
  return /^[0-9a-f]{32}\.(full|served)$/.test(rest);
}

export function encodeIndex(index: HistoryIndex): Buffer {
  const body = Buffer.from(JSON.stringify(index));
  return Buffer.concat([Buffer.from(`${INDEX_HEADER}${sha256(body).toString('hex')}\n`, 'latin1'), body]);
}

/** The index in `data`; DamagedFile when it is not one, or not intact. */
export function decodeIndex(data: Buffer): HistoryIndex {
  const newline = data.indexOf(0x0a);
  const header = newline < 0 ? '' : data.subarray(0, newline).toString('latin1');
  if (!header.startsWith(INDEX_HEADER)) throw new DamagedFile('not an sbkit list history');
  const body = data.subarray(newline + 1);
  if (sha256(body).toString('hex') !== header.slice(INDEX_HEADER.length)) throw new DamagedFile('checksum mismatch');
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DamagedFile('not JSON');
  }
  const index = json as Partial<HistoryIndex> | null;
  if (
    typeof index !== 'object' ||
    index === null ||
    typeof index.list !== 'string' ||
    ![4, 8, 16, 32].includes(index.hashLength as number) ||
    (index.kind !== 'full' && index.kind !== 'served') ||
    !Array.isArray(index.versions) ||
    index.versions.length === 0 ||
    !index.versions.every(isIndexedVersion) ||
    new Set(index.versions.map((version) => version.id)).size !== index.versions.length
  ) {
    throw new DamagedFile('not the shape of an index');
  }
  return index as HistoryIndex;
}

function isIndexedVersion(value: unknown): value is IndexedVersion {
  const version = value as Partial<IndexedVersion> | null;
  return (
    typeof version === 'object' &&
    version !== null &&
    typeof version.id === 'string' &&
    ID.test(version.id) &&
    typeof version.createdAt === 'number' &&
    Number.isFinite(version.createdAt) &&
    HOLDS_CODES.includes(version.holds as Holds) &&
    (version.checksum === undefined || (typeof version.checksum === 'string' && CHECKSUM.test(version.checksum)))
  );
}

/** A version file: its header, then `hashes` (sorted, concatenated, `width` bytes each). */
export function encodeVersionFile(version: Omit<VersionFile, 'hashes'>, hashes: Uint8Array): Uint8Array[] {
  if (hashes.length / version.width > MAX_VERSION_HASHES) {
    throw new RangeError(`${hashes.length / version.width} hashes are more than the ${MAX_VERSION_HASHES} a version file holds`);
  }
  const header = Buffer.alloc(HEADER_BYTES);
  let offset = MAGIC.copy(header, 0);
  offset = header.writeUInt8(HOLDS_CODES.indexOf(version.holds) + 1, offset);
  offset = header.writeUInt8(HOLDS_CODES.indexOf(version.kind) + 1, offset);
  offset = header.writeUInt8(version.width, offset);
  offset = header.writeUInt8(0, offset);
  offset = header.writeUInt32LE(hashes.length / version.width, offset);
  offset = header.writeDoubleLE(version.createdAt, offset);
  offset += Buffer.from(version.id, 'hex').copy(header, offset);
  digestOf(header.subarray(0, FIELD_BYTES), hashes).copy(header, offset);
  return [header, hashes];
}

/** The version file in `data`; DamagedFile when it is not one, or not intact. */
export function decodeVersionFile(data: Buffer): VersionFile {
  if (data.length < HEADER_BYTES || !data.subarray(0, MAGIC.length).equals(MAGIC)) throw new DamagedFile('not an sbkit version file');
  let offset = MAGIC.length;
  const holds = HOLDS_CODES[data.readUInt8(offset++) - 1];
  const kind = HOLDS_CODES[data.readUInt8(offset++) - 1];
  const width = data.readUInt8(offset++);
  offset++;
  const count = data.readUInt32LE(offset);
  offset += 4;
  const createdAt = data.readDoubleLE(offset);
  offset += 8;
  const id = data.subarray(offset, offset + SNAPSHOT_ID_BYTES).toString('hex');
  if (holds === undefined || kind === undefined || ![4, 8, 16, 32].includes(width)) throw new DamagedFile('its header is not one');
  if (data.length !== HEADER_BYTES + count * width) throw new DamagedFile('its length does not match its header');
  const hashes = data.subarray(HEADER_BYTES);
  if (!digestOf(data.subarray(0, FIELD_BYTES), hashes).equals(data.subarray(FIELD_BYTES, HEADER_BYTES))) {
    throw new DamagedFile('checksum mismatch');
  }
  return { holds, kind, width, createdAt, id, hashes };
}

function digestOf(fields: Uint8Array, hashes: Uint8Array): Buffer {
  return createHash('sha256').update(fields).update(hashes).digest();
}

function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}
