import { checksumOf } from '../store/hash-list.ts';
import { nodeSha256 } from '../url/hash.ts';
import { canonicalListName } from '../lists/known-lists.ts';
import { DEFAULT_WEB_RISK_LISTS, type WebRiskLists, type WebRiskThreatTypeName, webRiskTypeOfAlias } from '../lists/web-risk-lists.ts';
import type { ListDefinition } from './lists/list-definition.ts';
import type { ListHistory } from './lists/list-history.ts';
import type { Snapshot } from './lists/snapshot.ts';

/** The lists a server publishes, by name, each with its history of snapshots. */
export class ListCatalog {
  private readonly histories = new Map<string, ListHistory>();
  private threatHistories: ListHistory[];
  /** Where the Web Risk mapping is read at each lookup: the server's live settings, which a reload changes in place. */
  private webRisk: { readonly webRiskLists: WebRiskLists } = { webRiskLists: DEFAULT_WEB_RISK_LISTS };

  constructor(histories: Iterable<ListHistory>) {
    for (const history of histories) this.histories.set(history.definition.name, history);
    this.threatHistories = this.threatListsOf();
  }

  private threatListsOf(): ListHistory[] {
    return this.all().filter((history) => history.definition.threatTypes.length > 0);
  }

  /**
   * Stops publishing a list (a proxy whose upstream turns out not to have it): from now on it is
   * answered as any list this server lacks. Its history is kept by the caller, to {@link restore} it.
   */
  withdraw(name: string): void {
    if (this.histories.delete(name)) this.threatHistories = this.threatListsOf();
  }

  /** Publishes a withdrawn list again. */
  restore(history: ListHistory): void {
    this.histories.set(history.definition.name, history);
    this.threatHistories = this.threatListsOf();
  }

  /**
   * Resolves Web Risk's aliases (`webrisk:MALWARE`, lists/web-risk-lists.ts) through `settings.webRiskLists`,
   * read at each lookup, so that a reload that changes the mapping in place is in force at once.
   */
  answerWebRiskBy(settings: { readonly webRiskLists: WebRiskLists }): void {
    this.webRisk = settings;
  }

  /**
   * The list of a name, of an SB-11 alias of it or of a Web Risk alias; undefined for names this server
   * does not publish.
   */
  get(name: string): ListHistory | undefined {
    const history = this.histories.get(name);
    if (history !== undefined) return history;
    const webRiskType = webRiskTypeOfAlias(name);
    return webRiskType === undefined ? this.histories.get(canonicalListName(name)) : this.webRiskList(webRiskType);
  }

  /** The list that answers a Web Risk threat type: the one mapped to it, if published and of 4-byte hashes (Web Risk's only width). */
  webRiskList(type: WebRiskThreatTypeName): ListHistory | undefined {
    const name = this.webRisk.webRiskLists[type];
    const history = name === undefined ? undefined : this.histories.get(name);
    return history?.definition.hashLength === 4 ? history : undefined;
  }

  /** Every list, with its history of published snapshots. */
  all(): ListHistory[] {
    return [...this.histories.values()];
  }

  /** The threat lists (not the likely-safe ones such as the global cache), without a copy: searches read them on every request. */
  threatLists(): readonly ListHistory[] {
    return this.threatHistories;
  }

  /** Current snapshots of the threat lists (not the likely-safe ones such as the global cache). */
  threatSnapshots(): {
    /** The list's name, hash length and types. */
    definition: ListDefinition;
    /** Its current content and version. */
    snapshot: Snapshot;
  }[] {
    return this.threatHistories.map((history) => ({ definition: history.definition, snapshot: history.current() }));
  }
}

/**
 * How a list the server does not publish is answered where real clients ask for it in fixed sets of
 * lists (v4 triples, Firefox's v5 batch; src/lists/client-lists.ts): as an empty list, with a version and
 * a checksum all the same, since Firefox rejects an answer without state and the Go client one without
 * checksum (docs/api.md §3 pitfall 4). Other names are refused (api/unknown-lists.ts).
 */
export const NO_LIST_VERSION = new TextEncoder().encode('sbkit:no-such-list');
/** The checksum of an empty list: the stand-in's, whatever the width asked for. */
export const EMPTY_LIST_CHECKSUM = checksumOf({ width: 4, values: new Uint32Array(0) }, nodeSha256);
