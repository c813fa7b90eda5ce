// A caching proxy's upstream (SB-11) as the proxy sees it: the lists it mirrors, as the upstream last
// sent them, and the searches it passes on, within the request-frequency rules the upstream sets for
// any client. Made of the client's own parts (client/lists-and-searches.ts: its list updater, hash
// searcher and memory cache, transport and store), not of the public SafeBrowsingClient: the proxy
// checks no URL, and its full hashes stay 32-byte strings, the form the server answers in.

import { clientSettings } from '../../client/client-settings.ts';
import { ListsAndSearches } from '../../client/lists-and-searches.ts';
import type { SafeBrowsingClientOptions } from '../../client/options.ts';
import { nodeRuntime } from '../../client/runtime/node-runtime.ts';
import type { HashList } from '../../store/hash-list.ts';
import type { UpstreamSearchClient } from './upstream-searches.ts';

/** A list as the upstream last sent it. */
interface UpstreamList {
  /** Its hashes. */
  hashes: HashList;
  /** When the upstream sent them, ms since the epoch. */
  updatedAt: number;
}

/** What a caching proxy needs of its upstream: the lists to mirror, and searches (UpstreamSearchClient). */
export interface Upstream extends UpstreamSearchClient {
  /**
   * Loads the copy kept in `dataDir` and the request schedules.
   *
   * @throws DatabaseStorageError when `dataDir` cannot be created or read.
   */
  open(): Promise<void>;
  /** Starts following the upstream: RF-2's first update within `firstUpdateWindowMs`, then as its waits allow. */
  start(): Promise<void>;
  /** Fetches what the upstream's waits allow now; failures are reported as events, not thrown. */
  update(): Promise<void>;
  /** A list as the upstream last sent it; undefined before it did, or for a list not followed. */
  list(name: string): UpstreamList | undefined;
  /**
   * Whether a list as the upstream last sent it is current by the client's own rules (list-updater.ts
   * isCurrent: through one missed update, at least an hour): not before the upstream sent it, not once
   * it was dropped (SB-9), not once its updates have failed for longer than that.
   */
  listCurrent(name: string): boolean;
  /** The earliest moment the upstream's waits and the back-off after failures (RF-3, RF-4) let the lists be fetched again. */
  nextUpdateAt(): number | undefined;
  /** Stops following the upstream and saves the request schedules. */
  close(): Promise<void>;
}

/**
 * The upstream a client with `options` reaches, followed by the client's parts on Node.
 *
 * @throws ClientOptionError for options the client refuses.
 */
export function clientUpstream(options: SafeBrowsingClientOptions): Upstream {
  const settings = clientSettings(options, nodeRuntime);
  const kept = new ListsAndSearches(settings, options, nodeRuntime);
  return {
    open: () => kept.open(),
    start: () => kept.start(),
    update: async () => {
      await kept.update();
    },
    list: (name) => {
      // Asked at every search of a Web Risk mirror (listed-searches.ts): the stamp alone, not listInfo()'s encodings of every list.
      const hashes = kept.updater.list(name);
      const updatedAt = kept.updater.storedAt(name);
      return hashes === undefined || updatedAt === undefined ? undefined : { hashes, updatedAt };
    },
    listCurrent: (name) => kept.updater.isCurrent(name, settings.clock.now()),
    nextUpdateAt: () => kept.updater.nextUpdateAt,
    cachedSearch: (prefixes) => kept.searcher.cached(prefixes),
    // Web Risk searches one prefix per call (client/transport/transport-webrisk.ts).
    ...(options.protocol === 'webrisk' ? { prefixesPerRequest: 1 } : {}),
    searchPrefixes: async (prefixes) => {
      await kept.open();
      return kept.searcher.searchPrefixes(prefixes);
    },
    close: () => kept.close(),
  };
}
