import type { HashListUpdate } from '../store/hash-list.ts';
import type { HashWidth } from '../store/hash-set.ts';
import type { SearchResponse } from './check.ts';

/** A list the client asks about: its name, the version it holds (empty: none) and the width it expects. */
export interface ListState {
  name: string;
  version: Uint8Array;
  width: HashWidth;
}

/** What the server sent for one list: an update ready to apply, or why it could not be read. */
export type FetchedList = { name: string; update: HashListUpdate; minimumWaitMs: number | undefined } | { name: string; error: Error };

export interface UpdateResponse {
  /** One entry per list asked about, in the order asked. */
  lists: FetchedList[];
  /** v4 answers carry one wait for all lists; v5 ones carry a wait per list. */
  minimumWaitMs: number | undefined;
}

export interface SearchResult extends SearchResponse {
  /** v4 `fullHashes.find` only: no search before this has passed (RF-3). */
  minimumWaitMs?: number | undefined;
}

/** One protocol's way to reach a Safe Browsing server; every method rejects on any failure. */
export interface Transport {
  readonly protocol: 'v5' | 'v4';
  fetchUpdates(lists: readonly ListState[]): Promise<UpdateResponse>;
  /** `lists`: the states the client holds now (v4 sends them as `client_states`; v5 has none). */
  search(prefixes: readonly number[], lists: readonly ListState[]): Promise<SearchResult>;
}

/** SizeConstraints of API.md (v4 Constraints alike): 0 means no limit. */
export interface SizeConstraints {
  maxUpdateEntries: number;
  maxDatabaseEntries: number;
}
