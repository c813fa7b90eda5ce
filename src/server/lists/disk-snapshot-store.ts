import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWritableFolder, syncDirectory, targetOfTemporary, writeFileDurably } from '../../store/durable-file.ts';
import { checksumOf, firstUnordered, hashBytes, hashesFromBytes, type SortedHashes } from '../../store/hash-list.ts';
import { IrregularFileError, readRegularFile } from '../../store/regular-file.ts';
import { nodeSha256 } from '../../url/hash.ts';
import {
  DamagedFile,
  decodeIndex,
  decodeVersionFile,
  encodeIndex,
  encodeVersionFile,
  type HistoryIndex,
  type Holds,
  type SnapshotKind,
  type IndexedVersion,
  indexFileName,
  isVersionFileOf,
  MAX_INDEX_BYTES,
  MAX_VERSION_FILE_BYTES,
  versionFileName,
} from './history-files.ts';
import { ListError } from './list-error.ts';
import type { ListDefinition } from './list-definition.ts';
import type { KeptSnapshot, ListHistory } from './list-history.ts';
import { Snapshot } from './snapshot.ts';
import type { SnapshotStore } from './snapshot-store.ts';
import { SnapshotStoreError } from './snapshot-store-error.ts';
import { type Logger, type LogSink, loggerOf } from '../logger.ts';

export interface DiskSnapshotStoreOptions {
  /** Where to say what was restored, which files are damaged, and that a version could not be written. */
  log?: LogSink;
}

/**
 * Published snapshots kept on disk by one server instance (`sbkit serve --data DIR`), so that a restart
 * serves the same versions and clients holding any kept one still get a diff (SB-9). Requests are
 * answered from each ListHistory's memory, as with the memory store; this store writes every
 * publication to DIR before the history serves it, and at start has the histories serve what DIR holds.
 *
 * Per list (history-files.ts): an index naming the versions kept, oldest first; the current version's
 * full hashes, which searches need; each older version's served hashes, all a diff from it needs. So a
 * list takes at most `keep` version files and its index (one more, briefly, while a publication is
 * written), about 32 bytes per entry for the current version and the list's hash length per entry for
 * each older one. Every file is written to a temporary name, synced and renamed, then the folder synced
 * (store/durable-file.ts), the index last: a crash at any point leaves the previous index and every
 * file it names. Files the new index no longer names are removed after it is written.
 *
 * A damaged file (its checksum, length or shape wrong; its content not what its id says) is reported
 * through `log` and skipped, never served: a damaged index or current version leaves the list to its
 * feeds, a damaged older version only costs its clients a full update. A version that cannot be written
 * (a full disk) is still served, and said so: fresh threat data matters more than the diffs of its
 * clients after a restart.
 *
 * One instance per folder: with several instances, share the history through Redis instead.
 */
export class DiskSnapshotStore implements SnapshotStore {
  /** What the index of each list on disk names, as last read or written. */
  private readonly onDisk = new Map<ListHistory, IndexedVersion[]>();
  /** Older versions read from disk for a list whose current version could not be: kept until its first publication. */
  private readonly waiting = new Map<ListHistory, KeptSnapshot[]>();
  /** The work under way on each list: one thing at a time, so that an older publication never writes last. */
  private readonly queues = new Map<ListHistory, Promise<unknown>>();

  private constructor(
    readonly directory: string,
    private readonly log: Logger,
  ) {}

  /**
   * Opens (creating it if needed) the folder, and removes what writes cut short by a crash left in it.
   * Rejects with SnapshotStoreError ('storage') when the folder cannot be created, read or written: a
   * server that could not keep its versions would lose them at its next restart without a word.
   */
  static async open(directory: string, options: DiskSnapshotStoreOptions = {}): Promise<DiskSnapshotStore> {
    try {
      await makeWritableFolder(directory);
      for (const name of await readdir(directory)) {
        if (/\.(history|full|served)$/.test(targetOfTemporary(name) ?? '')) await rm(join(directory, name), { force: true });
      }
    } catch (error) {
      throw new SnapshotStoreError(
        'storage',
        `the list history folder ${directory} cannot be used (${(error as Error).message}); give --data (or the configuration's dataDir) a folder this user may write`,
        { cause: error },
      );
    }
    return new DiskSnapshotStore(directory, loggerOf(options.log));
  }

  /** Has each history serve the versions kept on disk; resolves to the names of the lists whose current version was read. */
  async follow(histories: readonly ListHistory[]): Promise<string[]> {
    const names: string[] = [];
    for (const history of histories) {
      if (await this.exclusive(history, () => this.restore(history))) names.push(history.definition.name);
    }
    return names;
  }

  async publish(history: ListHistory, fullHashes: Uint8Array): Promise<Snapshot> {
    return this.publishSnapshot(history, await history.snapshotInTurns(fullHashes));
  }

  /** One process: a mirror only moves forward, so a publication is the newest whenever it was received. */
  async publishServed(history: ListHistory, served: SortedHashes, receivedAt: number): Promise<Snapshot> {
    const current = await this.publishSnapshot(history, Snapshot.ofServed(history.definition, served, receivedAt));
    // The same content sent again is the same version, written no more; it was received again all the same.
    history.receivedAgain(receivedAt);
    return current;
  }

  /** Waits for the writes under way; what is published stays served. */
  async close(): Promise<void> {
    await Promise.all(this.queues.values());
  }

  private exclusive<T>(history: ListHistory, work: () => Promise<T>): Promise<T> {
    const result = (this.queues.get(history) ?? Promise.resolve()).then(work);
    this.queues.set(
      history,
      result.catch(() => {}),
    );
    return result;
  }

  private publishSnapshot(history: ListHistory, snapshot: Snapshot): Promise<Snapshot> {
    return this.exclusive(history, async () => {
      const waiting = this.waiting.get(history);
      if (waiting === undefined && snapshot.id === history.current().id) return history.current();
      // As ListHistory.publish keeps them: content published before moves to the newest place.
      const older = (waiting ?? history.keptSnapshots()).filter((kept) => kept.id !== snapshot.id);
      const kept = [...older, snapshot].slice(-history.keep);
      try {
        await this.write(history, kept, snapshot);
      } catch (error) {
        this.log.warn(
          `list ${history.definition.name}: version ${snapshot.id} is served but could not be kept in ${this.directory} ` +
            `(${(error as Error).message}); after a restart, clients holding it get the whole list`,
        );
      }
      history.adopt(snapshot, kept.slice(0, -1));
      this.waiting.delete(history);
      return history.current();
    });
  }

  /** Writes the versions `kept` (oldest first, `current` last) that the folder lacks, then the index, then removes the rest. */
  private async write(history: ListHistory, kept: readonly KeptSnapshot[], current: Snapshot): Promise<void> {
    const { definition } = history;
    const previous = new Map((this.onDisk.get(history) ?? []).map((version) => [version.id, version]));
    const versions: IndexedVersion[] = [];
    for (const snapshot of kept) {
      const holds: Holds = snapshot === current && current.kind === 'full' ? 'full' : 'served';
      const createdAt = snapshot instanceof Snapshot ? snapshot.createdAt : (previous.get(snapshot.id)?.createdAt ?? 0);
      const checksum = previous.get(snapshot.id)?.checksum ?? servedChecksum(snapshot);
      versions.push({ id: snapshot.id, createdAt, holds, checksum });
      if (previous.get(snapshot.id)?.holds === holds) continue;
      const hashes = holds === 'full' ? current.fullHashBytes() : hashBytes(snapshot.served());
      const width = holds === 'full' ? 32 : definition.hashLength;
      await writeFileDurably(
        this.path(versionFileName(definition.name, snapshot.id, holds)),
        encodeVersionFile({ holds, kind: current.kind, width, createdAt, id: snapshot.id }, hashes),
      );
    }
    const index: HistoryIndex = { list: definition.name, hashLength: definition.hashLength, kind: current.kind, versions };
    await writeFileDurably(this.path(indexFileName(definition.name)), encodeIndex(index));
    this.onDisk.set(history, versions);
    await this.removeUnnamed(definition.name, versions);
  }

  /**
   * Removes the version files of a list that its index does not name: versions no longer kept, and
   * those of a publication a crash cut short before its index was written.
   */
  private async removeUnnamed(list: string, versions: readonly IndexedVersion[]): Promise<void> {
    const named = new Set(versions.map((version) => versionFileName(list, version.id, version.holds)));
    const stale = (await readdir(this.directory)).filter((name) => isVersionFileOf(list, name) && !named.has(name));
    for (const name of stale) await rm(this.path(name), { force: true });
    // Only the disk's use depends on it: a removal lost in a crash is made again later.
    if (stale.length > 0) await syncDirectory(this.directory);
  }

  /** Has `history` serve what the folder keeps of its list; true when its current version was read. */
  private async restore(history: ListHistory): Promise<boolean> {
    const { definition } = history;
    const index = await this.readIndex(definition);
    if (index === undefined) return false;
    await this.removeUnnamed(definition.name, index.versions);
    const versions = index.versions.slice(-history.keep);
    const read: { version: IndexedVersion; snapshot: KeptSnapshot }[] = [];
    for (const [i, version] of versions.entries()) {
      const isCurrent = i === versions.length - 1;
      const file = versionFileName(definition.name, version.id, version.holds);
      try {
        read.push({ version, snapshot: await this.readVersion(definition, index.kind, version, file) });
      } catch (error) {
        if (!(error instanceof DamagedFile)) throw error;
        const consequence = isCurrent
          ? 'the list is loaded from its feeds, and clients at the older versions kept still get diffs'
          : 'clients holding this version get the whole list';
        this.log.warn(`list ${definition.name}: ${this.path(file)} cannot be used (${error.message}); it is not served: ${consequence}`);
      }
    }
    this.onDisk.set(
      history,
      read.map(({ version }) => version),
    );
    const current = read.at(-1);
    if (current === undefined || current.version !== versions.at(-1) || !(current.snapshot instanceof Snapshot)) {
      this.waiting.set(
        history,
        read.map(({ snapshot }) => snapshot),
      );
      return false;
    }
    history.adopt(
      current.snapshot,
      read.slice(0, -1).map(({ snapshot }) => snapshot),
    );
    this.log.info(
      `list ${definition.name}: restored ${read.length} of ${versions.length} kept versions from ${this.directory}, ` +
        `the current one published at ${new Date(current.snapshot.createdAt).toISOString()}`,
    );
    return true;
  }

  /** The index of a list, or undefined when there is none or it cannot be used (reported). */
  private async readIndex(definition: ListDefinition): Promise<HistoryIndex | undefined> {
    const file = this.path(indexFileName(definition.name));
    let index: HistoryIndex;
    try {
      const data = await readHistoryFile(file, MAX_INDEX_BYTES);
      if (data === undefined) return undefined;
      index = decodeIndex(data);
    } catch (error) {
      if (!(error instanceof DamagedFile)) throw error;
      this.log.warn(
        `list ${definition.name}: ${file} cannot be used (${error.message}); it is not served: the list is loaded from its feeds`,
      );
      return undefined;
    }
    if (index.list !== definition.name || index.hashLength !== definition.hashLength) {
      this.log.warn(
        `list ${definition.name}: ${file} keeps ${index.hashLength}-byte versions of list ${index.list}, ` +
          `the configuration serves ${definition.hashLength}-byte hashes; it is not served: the list is loaded from its feeds`,
      );
      return undefined;
    }
    return index;
  }

  /**
   * A version from its file: a Snapshot when the file holds what a current version needs (the full
   * hashes, or a mirror's served hashes), else its served hashes; DamagedFile when the file is not
   * intact, not the one the index names, or its content is not what its id says.
   */
  private async readVersion(definition: ListDefinition, kind: SnapshotKind, version: IndexedVersion, file: string): Promise<KeptSnapshot> {
    const data = await readHistoryFile(this.path(file), MAX_VERSION_FILE_BYTES);
    if (data === undefined) throw new DamagedFile('missing');
    const stored = decodeVersionFile(data);
    if (stored.id !== version.id || stored.holds !== version.holds || stored.kind !== kind) {
      throw new DamagedFile('its header is not the version the index names');
    }
    const width = version.holds === 'full' ? 32 : definition.hashLength;
    if (stored.width !== width) throw new DamagedFile(`it holds ${stored.width}-byte hashes, not ${width}-byte ones`);
    let snapshot: KeptSnapshot;
    try {
      if (version.holds === 'full') snapshot = Snapshot.of(definition, stored.hashes, stored.createdAt);
      else if (kind === 'served')
        snapshot = Snapshot.ofServed(definition, hashesFromBytes(definition.hashLength, stored.hashes), stored.createdAt);
      else snapshot = keptServed(version.id, hashesFromBytes(definition.hashLength, stored.hashes));
    } catch (error) {
      if (error instanceof ListError) throw new DamagedFile(error.message);
      throw error;
    }
    // The id of full hashes and of a mirror's served ones is derived from them: a check the checksum cannot fake.
    if (snapshot.id !== version.id) throw new DamagedFile(`its content is version ${snapshot.id}`);
    // An older version of full hashes keeps only its served ones, from which its id cannot be derived: the
    // index's checksum of them is what a changed file (its own checksum made to match) cannot pass.
    if (version.checksum === undefined) {
      if (!(snapshot instanceof Snapshot))
        throw new DamagedFile('its index, written by an earlier sbkit, gives no checksum to check it by');
    } else if (servedChecksum(snapshot) !== version.checksum) {
      throw new DamagedFile(`its served hashes are not those of version ${version.id} (their checksum is not the index's)`);
    }
    return snapshot;
  }

  private path(name: string): string {
    return join(this.directory, name);
  }
}

/** SB-9's checksum of a version's served hashes, in hex, as the index keeps it. */
function servedChecksum(snapshot: KeptSnapshot): string {
  const checksum = snapshot instanceof Snapshot ? snapshot.checksum : checksumOf(snapshot.served(), nodeSha256);
  return Buffer.from(checksum).toString('hex');
}

/** An older version of a list of full hashes, as its served hashes: they must at least be in order. */
function keptServed(id: string, served: SortedHashes): KeptSnapshot {
  if (firstUnordered(served) >= 0) throw new DamagedFile('its hashes are not in ascending order');
  return { id, served: () => served };
}

/**
 * The bytes of a file of the history, or undefined when there is none; DamagedFile when it is larger than
 * sbkit writes one. Anything else is not damage (a file this user may not read, an I/O error, a link or a
 * FIFO in a file's place): going on would let the next publication prune a history that may be intact,
 * so the start fails, saying which file and what to do.
 */
async function readHistoryFile(file: string, maxBytes: number): Promise<Buffer | undefined> {
  try {
    return await readRegularFile(file, maxBytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof IrregularFileError && error.reason === 'too-large') {
      throw new DamagedFile(`larger than the ${maxBytes} bytes sbkit writes in such a file at most`);
    }
    const message =
      error instanceof IrregularFileError
        ? `${error.message}, then start again`
        : `cannot read ${file} (${(error as Error).message}); fix its permissions or the disk, then start again`;
    throw new SnapshotStoreError('storage', message, { cause: error });
  }
}
