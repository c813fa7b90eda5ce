import type { HashList } from './hash-list.ts';
import { type ErrorCode, errorCode, SbkitError } from '../sbkit-error.ts';

/**
 * Where a client keeps its lists (SB-9) and its request schedules between runs. The runtime picks one at
 * the edge: a folder on Node (`LocalDatabase`, crash-safe files), IndexedDB in browsers and extensions
 * (`IndexedDbListStore`); with none (`storage: 'memory'`), the client holds its lists and schedules in
 * memory and nothing outlives it. Every list is loaded when the store opens; reads are then synchronous.
 */
export interface ListStore {
  /** Look, do not touch: every write is refused. */
  readonly readOnly: boolean;
  /** Where a list is kept, as errors and events name it. */
  fileOf(name: string): string;
  /** Where the client state is kept, as errors and events name it. */
  readonly stateFile: string;
  get(name: string): StoredList | undefined;
  all(): StoredList[];
  /** Stores a list whole or not at all; rejects with DatabaseStorageError. */
  save(list: HashList, updatedAt: number): Promise<void>;
  /** Forgets a list (SB-9: after a failed update it is fetched again from scratch); rejects with DatabaseStorageError. */
  drop(name: string): Promise<void>;
  /** The saved client state: undefined when there is none, DatabaseFileError when it cannot be read. */
  readState(): Promise<unknown>;
  /** Replaces the client state; rejects with DatabaseStorageError. */
  writeState(state: unknown): Promise<void>;
  /** Lets go of what the store holds open (IndexedDB's connection); the store is not used afterwards. */
  close(): void;
}

/** What becomes of client state that cannot be read. */
export const STATE_IGNORED = 'it is ignored, and written anew at the next save';

export interface StoredList {
  list: HashList;
  /** When the list was last updated successfully, ms since the epoch. */
  updatedAt: number;
}

/** Why a file was not loaded. */
export class DatabaseFileError extends SbkitError {
  /** Always `"DatabaseFileError"`, as logs and stack traces show it. */
  override readonly name = 'DatabaseFileError';
  /** Always `SBKIT_DATABASE_FILE`. */
  override readonly code = errorCode('DATABASE_FILE');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'DATABASE_FILE'>[] = [errorCode('DATABASE_FILE')];

  constructor(
    /** The path of the damaged file. */
    readonly file: string,
    detail: string,
    consequence = 'the list will be fetched again',
  ) {
    super(`database file ${file} was not loaded (${detail}); ${consequence}`);
  }
}

/**
 * The store could not be created, read or written: a full disk, a path that is not a folder, missing
 * permissions, or a database opened read-only. Nothing half-written is left behind.
 */
export class DatabaseStorageError extends SbkitError {
  /** Always `"DatabaseStorageError"`, as logs and stack traces show it. */
  override readonly name = 'DatabaseStorageError';
  /** Always `SBKIT_DATABASE_STORAGE`. */
  override readonly code = errorCode('DATABASE_STORAGE');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'DATABASE_STORAGE'>[] = [errorCode('DATABASE_STORAGE')];

  constructor(
    /** The database's folder. */
    readonly directory: string,
    action: string,
    cause: unknown,
    /** What the person can do about it, when the failure is theirs to fix. */
    remedy?: string,
  ) {
    const because = cause instanceof Error ? cause.message : String(cause);
    super(`local database ${directory}: cannot ${action} (${because})${remedy === undefined ? '' : `; ${remedy}`}`, { cause });
  }
}
