// The client's options and what they name: modes, servers, lists, events, and the error for options
// that cannot work. Apart from the facade, nothing here loads any code: the CLI reads it to parse flags.

import type { WireEncoding } from '../wire/encoding.ts';
import type { Clock } from '../time/clock.ts';
import type { UpdateError } from './client-errors.ts';
import type { LocalCacheOptions } from './local-cache.ts';
import type { ObliviousHttpOptions } from './transport/oblivious-http.ts';
import type { SizeConstraints } from './transport/transport.ts';

/** SB-4's modes: `realtime` (global cache, local lists, then the server), `local` (local lists, the server on a match) or `nostorage` (the server for anything the memory cache cannot answer). */
export type Mode = 'realtime' | 'local' | 'nostorage';

/** Google's Safe Browsing server, the default `server`. */
export const GOOGLE_SERVER = 'https://safebrowsing.googleapis.com';

/** Google's Web Risk server, the default `server` of `protocol: 'webrisk'`. */
export const WEB_RISK_SERVER = 'https://webrisk.googleapis.com';

/**
 * The default `maxListEntries`: 2^24. Eight times the 2 M prefixes of the largest lists sbkit plans for
 * (docs/architecture.md's budgets), so that no real list comes near it, while a hostile answer of a few
 * megabytes, whose Rice header can announce tens of millions of entries, is refused before it costs
 * hundreds of megabytes to decode and keep.
 */
export const DEFAULT_MAX_LIST_ENTRIES = 16 * 1024 * 1024;

/** How a {@link SafeBrowsingClient} talks to its server and keeps its data; every field is optional. */
export interface SafeBrowsingClientOptions {
  /** Server origin; Google's by default (for Web Risk, `https://webrisk.googleapis.com`). */
  server?: string;
  /** API key, sent as `key=` (Google's server needs one). */
  apiKey?: string;
  /**
   * `v5` (the default), `v4` for servers that only speak the Update API, or `webrisk` for Google's Web
   * Risk API (webrisk.googleapis.com); lists keep their v5 names whatever the protocol (SB-14).
   */
  protocol?: 'v5' | 'v4' | 'webrisk';
  /** Real-time (v5 only, the default there), local lists (the default for v4 and Web Risk), or no storage. */
  mode?: Mode;
  /** Folder of the local database; without one, lists live in memory only. */
  dataDir?: string;
  /** Threat lists to keep locally (SB-11); the global cache `gc-32b` is added in real-time mode. */
  lists?: readonly string[];
  /** `protobuf` (the default) or `json`, for servers and proxies that only speak proto3 JSON; Web Risk is always JSON. */
  encoding?: WireEncoding;
  /** `User-Agent` of every request (SB-14: client id and version); `sbkit/<version>` by default. */
  userAgent?: string;
  /** Bound on each request, connect to last byte, in ms; 10000 by default. */
  timeoutMs?: number;
  /** Largest answer read, in bytes once decompressed; 64 MiB by default. */
  maxResponseBytes?: number;
  /**
   * The most entries a local list may hold, and a list answer announce; 16 Mi (16,777,216) by default,
   * 64 MiB as 4-byte prefixes. An answer over it is refused before it is decoded (ListTooLargeError)
   * and counts as a failed update.
   */
  maxListEntries?: number;
  /** docs/api.md's SizeConstraints sent with list updates: `maxUpdateEntries`, `maxDatabaseEntries` (0: no limit). */
  sizeConstraints?: Partial<SizeConstraints>;
  /** Random decoy prefixes added to each search (SB-8); 0 (the default) sends none. */
  decoyPrefixes?: number;
  /** The memory cache of search answers: its size, and how long answers without full hashes may be kept. */
  cache?: LocalCacheOptions;
  /** RF-2: the first automatic update happens at a random moment within this window after start(). */
  firstUpdateWindowMs?: number;
  /**
   * The shortest wait between complete list updates, whatever the server says (a caching proxy keeps
   * lists at least five minutes, SB-11). A zero wait, the server's "come back for the rest", still holds.
   */
  minimumUpdateWaitMs?: number;
  /**
   * Send searches through an Oblivious HTTP relay (SB-2): the relay sees that you search, the gateway
   * (the server) what, neither both. Updates go to `server` directly: they reveal nothing.
   */
  ohttp?: ObliviousHttpOptions;
  /**
   * Open `dataDir` to look only (what `sbkit lists` does): nothing in it is created, changed or removed,
   * damaged files are reported and left alone, and `update()` and `start()` are refused.
   */
  readOnly?: boolean;
  /** Time and timers; the system's by default (tests pass a fake clock). */
  clock?: Clock;
  /** Random numbers in [0, 1) for RF-2's first moment, RF-4's back-off and decoys; `Math.random` by default. */
  random?: () => number;
  /** Told of everything worth a log line; the library itself prints nothing. */
  onEvent?: (event: ClientEvent) => void;
}

/**
 * What happened, for logs: every update round, failed updates (a list that could not be stored is one),
 * lists the server does not publish, dropped lists, damaged files, and request schedules that could not be saved (waits may then not
 * outlive a restart). Times are ms since the epoch.
 */
export type ClientEvent =
  | {
      /** An update round the server answered. */
      type: 'update';
      /** The lists asked for. */
      lists: string[];
      /** The lists of this round that were updated (or confirmed) and stored; lists that failed are not among them. */
      stored: {
        /** The list's name. */
        list: string;
        /** Updated by a diff (a partial update), not replaced by a full one. */
        partial: boolean;
        /** A checksum the server sent verified the list as stored (SB-9). */
        verified: boolean;
      }[];
      /** When the next update may go out. */
      nextUpdateAt: number;
    }
  | {
      /** An update that failed: the client backs off (RF-4). */
      type: 'update-failed';
      /** Why. */
      error: UpdateError;
      /** N of RF-4's back-off. */
      consecutiveFailures: number;
      /** When the next update may go out. */
      nextUpdateAt: number;
    }
  | {
      /**
       * Lists asked for that the server says it does not publish (it was asked which it has): they are
       * not kept, and asked about again in half an hour.
       */
      type: 'lists-not-published';
      /** The lists it lacks. */
      lists: string[];
      /** The lists it publishes. */
      available: string[];
    }
  | {
      /** A list dropped after an update that could not be applied (SB-9): it is fetched again in full. */
      type: 'list-dropped';
      /** Its name. */
      list: string;
      /** Why. */
      error: Error;
    }
  | {
      /** A file of the local database that could not be used: it is replaced, or the list fetched again. */
      type: 'damaged-file';
      /** Which file, and what is wrong with it. */
      error: Error;
    }
  | {
      /** The request schedules could not be written: waits and back-off may not outlive a restart. */
      type: 'state-not-saved';
      /** Why. */
      error: Error;
    };

/** Whether `text` is an http or https URL: what a server address must be. */
export function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
