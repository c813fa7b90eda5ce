import { sha256Portable } from '../../url/sha256.ts';
import { webCryptoHasher } from '../../url/web-crypto-hash.ts';
import type { ClientRuntime } from './client-runtime.ts';
import { ClientOptionError } from '../client-errors.ts';
import { nonEmptyText, oneOf, type OptionRules } from '../option-check.ts';
import { sendWithFetch } from '../transport/fetch-http.ts';
import type { SafeBrowsingClientOptions } from '../options.ts';

/** Where a client off Node keeps its lists and request schedules. */
export interface BrowserStorageOptions {
  /**
   * `indexeddb` (the default where the runtime has IndexedDB: browsers, extensions' service workers, Web
   * Workers) keeps them across restarts; `memory` for as long as the client lives.
   */
  storage?: 'indexeddb' | 'memory';
  /** The IndexedDB database; `sbkit` by default. */
  databaseName?: string;
}

/** The options of the browser's storage, checked with every client's. */
export const BROWSER_OPTION_RULES: OptionRules = { storage: oneOf('indexeddb', 'memory'), databaseName: nonEmptyText };

/**
 * The client off Node: WebCrypto's SHA-256 (asynchronous, awaited once per check of any number of URLs),
 * list checksums in JavaScript (WebCrypto has no synchronous digest), lists in IndexedDB or memory,
 * fetch, and searches through an Oblivious HTTP relay on WebCrypto. v5 in binary protobuf only
 * (docs/browser.md).
 */
export function browserRuntime(storage: BrowserStorageOptions): ClientRuntime {
  return {
    hasher: webCryptoHasher,
    sha256: sha256Portable,
    async openStore(_options: SafeBrowsingClientOptions, onDamaged) {
      const hasIndexedDb = (globalThis as { indexedDB?: unknown }).indexedDB !== undefined;
      if (storage.storage === 'memory' || (storage.storage === undefined && !hasIndexedDb)) return undefined;
      const { IndexedDbListStore } = await import('../../store/indexeddb-list-store.ts');
      return IndexedDbListStore.open(storage.databaseName ?? 'sbkit', { onDamaged });
    },
    async connect(protocol, settings, _lists, ohttp, clock) {
      if (protocol !== 'v5' || settings.encoding !== 'protobuf')
        throw new ClientOptionError('sbkit/browser speaks v5 in binary protobuf; v4 and JSON need Node');
      const [{ V5Transport }, { binaryV5Rpcs }] = await Promise.all([
        import('../transport/transport-v5.ts'),
        import('../transport/v5-binary-rpcs.ts'),
      ]);
      if (ohttp === undefined) return new V5Transport(settings, binaryV5Rpcs(settings, sendWithFetch));
      // SB-2: only searches go through the relay; list updates say nothing about what is visited.
      const { ObliviousHttp } = await import('../transport/oblivious-http.ts');
      const oblivious = new ObliviousHttp(ohttp, sendWithFetch, clock);
      return new V5Transport(
        settings,
        binaryV5Rpcs(settings, sendWithFetch, { searchSender: (request, http) => oblivious.send(request, http) }),
      );
    },
    userAgent: 'sbkit',
    optionRules: BROWSER_OPTION_RULES,
  };
}
