// What a client keeps of its server, apart from any URL: the local lists and their updates (ListUpdater),
// the searches with the memory cache in front of them (HashSearcher, LocalCache), the one transport both
// speak through, and the store the lists and both request schedules are kept in between runs. The
// facade (client-core.ts) checks URLs against these; a caching proxy follows its upstream with them
// (server/proxy/upstream.ts).

import type { ListStore } from '../store/list-store.ts';
import { ClientOptionError } from './client-errors.ts';
import type { ClientSettings } from './client-settings.ts';
import { HashSearcher } from './hash-searcher.ts';
import { LocalCache } from './local-cache.ts';
import type { ClientEvent, SafeBrowsingClientOptions } from './options.ts';
import type { ClientRuntime } from './runtime/client-runtime.ts';
import type { Transport } from './transport/transport.ts';
import { ClientStateFile } from './updates/client-state.ts';
import { ListUpdater, type UpdateSummary } from './updates/list-updater.ts';

export class ListsAndSearches {
  /** The memory cache of search answers (SB-4). */
  readonly cache: LocalCache;
  /** The local lists, kept current. */
  readonly updater: ListUpdater;
  /** Searches, within their own schedule. */
  readonly searcher: HashSearcher;
  private transport: Promise<Transport> | undefined;
  private stateFile: ClientStateFile | undefined;
  /** The store the lists and schedules are kept in, once opened; closed with the client. */
  private store: ListStore | undefined;
  private opened: Promise<void> | undefined;

  constructor(
    private readonly settings: ClientSettings,
    private readonly options: SafeBrowsingClientOptions,
    private readonly runtime: ClientRuntime,
  ) {
    const { protocol, threatLists, globalCache, clock, random } = settings;
    this.cache = new LocalCache(options.cache);
    const connection = () => (this.transport ??= runtime.connect(protocol, settings.server, threatLists, options.ohttp, clock));
    const saveSchedules = () => this.stateFile?.save() ?? Promise.resolve(undefined);
    this.updater = new ListUpdater({
      names: globalCache === undefined ? threatLists : [...threatLists, globalCache],
      threatLists,
      optional: settings.optional,
      connection,
      clock,
      random,
      emit: (event) => this.emit(event),
      saveSchedules,
      firstUpdateWindowMs: options.firstUpdateWindowMs,
      minimumUpdateWaitMs: options.minimumUpdateWaitMs ?? 0,
      maxListEntries: settings.server.maxListEntries,
      sha256: runtime.sha256,
    });
    this.searcher = new HashSearcher({
      connection,
      cache: this.cache,
      clock,
      random,
      listStates: () => this.updater.listStates(threatLists),
      saveSchedules,
    });
  }

  /**
   * Loads the local database and the persisted request schedules; idempotent. Damaged files are
   * reported as `damaged-file` events, never thrown.
   *
   * @throws {@link DatabaseStorageError} when `dataDir` cannot be created or read.
   */
  open(): Promise<void> {
    // A load that failed (storage blocked, a folder not yet mounted) is tried again by the next call,
    // rather than every later check failing with the first error.
    this.opened ??= this.load().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  private async load(): Promise<void> {
    if (this.settings.mode === 'nostorage') return;
    const reportDamage = (error: Error) => this.emit({ type: 'damaged-file', error });
    const database = await this.runtime.openStore(this.options, reportDamage);
    if (database === undefined) return;
    this.store = database;
    this.stateFile = new ClientStateFile(database, () => ({ updates: this.updater.state, search: this.searcher.state }), {
      damaged: reportDamage,
      notSaved: (error) => this.emit({ type: 'state-not-saved', error }),
    });
    const state = await this.stateFile.read();
    this.updater.load(database, state.updates);
    if (state.search !== undefined) this.searcher.restore(state.search);
  }

  /**
   * Opens, then keeps the lists current in the background (RF-2: the first update within the first
   * minute, later ones as the server's waits and back-off allow).
   *
   * @throws {@link ClientOptionError} when read-only; {@link DatabaseStorageError} as {@link open}.
   */
  async start(): Promise<void> {
    this.refuseWhenReadOnly('start');
    await this.open();
    this.updater.start();
  }

  /**
   * Opens, then fetches every list whose wait is over (SB-12), as {@link ListUpdater.update}.
   *
   * @throws {@link ClientOptionError} when read-only; {@link DatabaseStorageError} as {@link open}.
   */
  async update(): Promise<UpdateSummary> {
    this.refuseWhenReadOnly('update');
    await this.open();
    return this.updater.update();
  }

  /**
   * Stops background updates, saves the request schedules (RF-3 and RF-4 waits, of searches too, outlive
   * the process), forgets the cache and closes the store (IndexedDB's connection).
   */
  async close(): Promise<void> {
    await this.updater.stop();
    await this.opened?.catch(() => undefined);
    await this.stateFile?.save();
    this.cache.clear();
    this.store?.close();
    this.store = undefined;
  }

  private refuseWhenReadOnly(method: 'start' | 'update'): void {
    if (this.options.readOnly === true)
      throw new ClientOptionError(
        `${method}() refused: this client opens its data folder read-only (readOnly: true) and never changes its lists`,
        { option: 'readOnly' },
      );
  }

  private emit(event: ClientEvent): void {
    this.options.onEvent?.(event);
  }
}
