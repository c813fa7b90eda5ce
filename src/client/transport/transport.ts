// How the client reaches a Safe Browsing server: the Transport interface both protocols implement, and
// the answers they give (connect.ts makes one).

import type { HashListUpdate } from '../../store/hash-list.ts';
import { WireResponseError } from '../../wire/wire-error.ts';
import type { HashWidth } from '../../lists/list-name.ts';
import type { WireEncoding } from '../../wire/encoding.ts';
import type { HttpSettings } from './http.ts';
import type { FullHashMatch } from '../../lists/threat-details.ts';
import type { Protocol } from '../../wire/rest/routes.ts';

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
  /** v4 answers carry one wait for all lists; v5 and Web Risk ones carry a wait per list. */
  minimumWaitMs: number | undefined;
}

/** A `hashes.search` (or v4 `fullHashes.find`) answer, as the check procedures and the cache read it. */
export interface SearchResponse {
  /** The full hashes the client can use (32 bytes, known threat details). */
  fullHashes: FullHashMatch[];
  /** How many full hashes the server sent, usable or not: only an answer without any may be cached longer. */
  serverFullHashCount: number;
  /** v5 `cache_duration`: applies to every prefix queried, found or not (SB-8). */
  cacheDurationMs: number;
  /** v4 `negative_cache_duration`: for queried prefixes without a match, when it differs. */
  negativeCacheDurationMs?: number | undefined;
}

export interface SearchResult extends SearchResponse {
  /** v4 `fullHashes.find` only: no search before this has passed (RF-3). */
  minimumWaitMs?: number | undefined;
}

/** One protocol's way to reach a Safe Browsing server; every method rejects on any failure. */
export interface Transport {
  readonly protocol: Protocol;
  fetchUpdates(lists: readonly ListState[]): Promise<UpdateResponse>;
  /** `lists`: the states the client holds now (v4 sends them as `client_states`; v5 has none). */
  search(prefixes: readonly number[], lists: readonly ListState[]): Promise<SearchResult>;
  /**
   * The v5 names of the lists the server publishes (v5 `hashLists`, v4 `threatLists`, Web Risk's fixed
   * three); undefined when the server has no such listing (it answers 404 or 501).
   */
  listNames(): Promise<readonly string[] | undefined>;
}

/** SizeConstraints of docs/api.md (v4 Constraints alike): 0 means no limit. */
export interface SizeConstraints {
  maxUpdateEntries: number;
  maxDatabaseEntries: number;
}

/** Where and how a transport talks to its server. */
export interface ServerSettings extends HttpSettings {
  /** Origin (and optional path prefix) of the server, e.g. https://safebrowsing.googleapis.com. */
  serverUrl: string;
  apiKey: string | undefined;
  /** Binary protobuf by default; JSON is supported for servers and proxies that only speak it. */
  encoding: WireEncoding;
  sizeConstraints: SizeConstraints;
  /** The most entries a list answer may announce; more is refused before decoding (ListTooLargeError). */
  maxListEntries: number;
}

/**
 * A server without a listing of its lists: it cannot say which it has. 404, 405 and 501 are how servers
 * answer a path they do not serve; 400 too, for some (and for a bad key Google's, which the update that
 * follows then reports).
 */
function isNotImplemented(error: unknown): boolean {
  return error instanceof WireResponseError && error.kind === 'error-status' && [400, 404, 405, 501].includes(error.httpStatus);
}

/** The answer of a call for the server's listing of its lists; undefined when it has none (isNotImplemented). */
export async function unlessUnlisted<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (isNotImplemented(error)) return undefined;
    throw error;
  }
}
