import { sha256Portable } from '../../url/sha256.ts';
import { webCryptoHasher } from '../../url/web-crypto-hash.ts';
import type { ClientRuntime } from './client-runtime.ts';
import { ClientOptionError } from '../client-errors.ts';
import { nonEmptyText, oneOf, type OptionRules } from '../option-check.ts';
import { sendWithFetch } from '../transport/fetch-http.ts';
import { V5Transport } from '../transport/transport-v5.ts';
import { binaryV5Rpcs } from '../transport/v5-binary-rpcs.ts';
import { ObliviousHttp } from '../transport/oblivious-http.ts';
import { IndexedDbListStore } from '../../store/indexeddb-list-store.ts';
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
 *
 * Its parts are imported statically, not with `import()`: esbuild, bundling into one file, wraps every
 * module an `import()` reaches in an initializer of its own, which cost that bundle 1.5 KB gzipped
 * (test/package/browser-bundle.test.ts), and a bundler that splits code gained nothing by it. The store
 * and the transport are needed at a client's first check anyway, and Oblivious HTTP's modules were in
 * the first chunk already, since browser.ts checks `ohttp.keys` with oblivious-http.ts.
 */
export function browserRuntime(storage: BrowserStorageOptions): ClientRuntime {
  return {
    hasher: webCryptoHasher,
    sha256: sha256Portable,
    async openStore(_options: SafeBrowsingClientOptions, onDamaged) {
      const hasIndexedDb = (globalThis as { indexedDB?: unknown }).indexedDB !== undefined;
      if (storage.storage === 'memory' || (storage.storage === undefined && !hasIndexedDb)) return undefined;
      return IndexedDbListStore.open(storage.databaseName ?? 'sbkit', { onDamaged });
    },
    async connect(protocol, settings, _lists, ohttp, clock) {
      if (protocol !== 'v5' || settings.encoding !== 'protobuf')
        throw new ClientOptionError('sbkit/browser speaks v5 in binary protobuf; v4 and JSON need Node');
      if (ohttp === undefined) return new V5Transport(settings, binaryV5Rpcs(settings, sendWithFetch));
      // SB-2: only searches go through the relay; list updates say nothing about what is visited.
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
