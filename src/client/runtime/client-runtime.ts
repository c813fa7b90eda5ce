// What a client needs of its runtime, chosen at the edge: Node's entry (safe-browsing-client.ts) hands
// the client node:crypto, a folder and node:http; the browser entry (src/browser.ts) WebCrypto,
// IndexedDB or memory, and fetch. Everything else of the client is the same code on every runtime.

import type { ExpressionHasher } from '../../url/expression-hasher.ts';
import type { Sha256 } from '../../url/sha256.ts';
import type { DatabaseFileError, ListStore } from '../../store/list-store.ts';
import type { ObliviousHttpOptions } from '../transport/oblivious-http.ts';
import type { SafeBrowsingClientOptions } from '../options.ts';
import type { ServerSettings, Transport } from '../transport/transport.ts';
import type { OptionRules } from '../option-check.ts';
import type { Clock } from '../../time/clock.ts';
import type { Protocol } from '../../wire/rest/routes.ts';

export interface ClientRuntime {
  /** SB-7 for the expressions of a URL. */
  hasher: ExpressionHasher;
  /** SHA-256 of bytes for list checksums (SB-9): synchronous, since an update is applied without waiting. */
  sha256: Sha256;
  /**
   * The store of the lists and schedules the options ask for, opened and loaded; undefined keeps them in
   * memory only. Rejects with DatabaseStorageError; damaged entries are reported, never thrown.
   */
  openStore(options: SafeBrowsingClientOptions, onDamaged: (error: DatabaseFileError) => void): Promise<ListStore | undefined>;
  /** A transport of the protocol, its code loaded at the first request; `clock` is the client's. */
  connect(
    protocol: Protocol,
    settings: ServerSettings,
    lists: readonly string[],
    ohttp: ObliviousHttpOptions | undefined,
    clock: Clock,
  ): Promise<Transport>;
  /** `User-Agent` unless the options name one (SB-14); browsers send their own whatever this says. */
  userAgent: string;
  /** The options this runtime takes beyond every client's (the browser's storage), checked with them. */
  optionRules?: OptionRules;
  /**
   * Refuses, with a ClientOptionError, options only this runtime cannot work with, once every client's
   * checks have passed (Node's: a list v4 or Web Risk does not have).
   */
  checkOptions?(options: SafeBrowsingClientOptions, protocol: Protocol): void;
}
