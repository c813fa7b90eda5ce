import { create } from '@bufbuild/protobuf';
import {
  ComputeThreatListDiffRequestSchema,
  type ComputeThreatListDiffResponse,
  ComputeThreatListDiffResponse_ResponseType as ResponseType,
  CompressionType,
  type RiceDeltaEncoding,
  SearchHashesRequestSchema,
  type SearchHashesResponse,
  type ThreatEntryAdditions,
  type ThreatEntryRemovals,
} from '../../proto/webrisk.ts';
import type { HashListUpdate } from '../../store/hash-list.ts';
import type { Clock } from '../../time/clock.ts';
import { bytesOfPrefix32 } from '../../url/hash-string.ts';
import { latin1OfBytes } from '../../url/byte-string.ts';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';
import { msUntilTimestamp } from '../../wire/timestamp.ts';
import type { FullHashMatch, ThreatDetail } from '../../lists/threat-details.ts';
import type { ThreatTypeName } from '../../lists/threat-types.ts';
import { WEB_RISK_THREAT_LISTS } from '../../lists/known-lists.ts';
import {
  type WebRiskThreatTypeName,
  webRiskThreatTypeName,
  webRiskThreatTypeNumber,
  webRiskThreatTypeOf,
} from '../../lists/web-risk-lists.ts';
import { ListTooLargeError, type WebRiskListFailure, WebRiskListUpdateError } from '../client-errors.ts';
import { callsInParallel } from './calls-in-parallel.ts';
import { sendRequest } from './http.ts';
import { callRpc } from './rpc.ts';
import { mergeSearchResults } from './search-results.ts';
import { additionsOf, announcedEntries, type EntrySet, removalsOf } from './threat-entry-sets.ts';
import type { FetchedList, ListState, SearchResult, ServerSettings, Transport, UpdateResponse } from './transport.ts';

/** computeDiff requests under way at once: Web Risk has three lists, each asked for alone. */
const DIFFS_IN_PARALLEL = 3;
/** hashes:search requests under way at once: Web Risk searches one prefix per request. */
const SEARCHES_IN_PARALLEL = 6;

/**
 * The client's threat type of each Web Risk type it acts on. SOCIAL_ENGINEERING_EXTENDED_COVERAGE has
 * no Safe Browsing counterpart and is never asked about; a detail of it is disregarded, as SB-8
 * disregards any unknown one.
 */
const CLIENT_THREAT_TYPES: Readonly<Partial<Record<WebRiskThreatTypeName, ThreatTypeName>>> = {
  MALWARE: 'MALWARE',
  SOCIAL_ENGINEERING: 'SOCIAL_ENGINEERING',
  UNWANTED_SOFTWARE: 'UNWANTED_SOFTWARE',
};

/**
 * Web Risk v1 (webrisk.googleapis.com), Safe Browsing's commercial sibling: `threatLists:computeDiff`
 * once per list for updates, `hashes:search` once per prefix for lookups, in JSON (Google's REST front
 * end for Web Risk speaks JSON), with v5 list names on the outside so that one local database serves
 * every protocol. Web Risk says until when (an expiry, a recommended next diff) where Safe Browsing
 * says for how long: both are read against the client's clock and cut as durations are.
 */
export class WebRiskTransport implements Transport {
  readonly protocol = 'webrisk';
  private readonly settings: ServerSettings;
  /** The threat types searches ask about: those of the lists given, or all Web Risk shares with Safe Browsing. */
  private readonly searchTypes: number[];

  /** Throws NoWebRiskListError for a list Web Risk does not have, such as the global cache `gc-32b`. */
  constructor(
    settings: ServerSettings,
    lists: readonly string[],
    private readonly clock: Clock,
  ) {
    this.settings = { ...settings, encoding: 'json' };
    const names = lists.length > 0 ? lists : WEB_RISK_THREAT_LISTS;
    this.searchTypes = [...new Set(names.map((name) => webRiskThreatTypeNumber(webRiskThreatTypeOf(name))))];
  }

  /**
   * One `threatLists:computeDiff` per list, a few at a time, each list with its own wait from its
   * `recommended_next_diff` (SB-12). Lists Web Risk does not have, or asked twice under two names, get
   * an error without being sent. A request that fails fails the whole update (RF-4 backs off), as a
   * failed v5 batchGet would: one list's 503 must not be taken for a bad diff and drop it (SB-9).
   */
  async fetchUpdates(lists: readonly ListState[]): Promise<UpdateResponse> {
    const results: FetchedList[] = [];
    const asked: { index: number; state: ListState; threatType: WebRiskThreatTypeName }[] = [];
    const askedNames = new Map<WebRiskThreatTypeName, string>();
    lists.forEach((state, index) => {
      try {
        const threatType = webRiskThreatTypeOf(state.name);
        if (state.width !== 4)
          throw new WebRiskListUpdateError(
            'not-four-bytes',
            state.name,
            `Web Risk lists hold 4-byte prefixes; this list is kept with ${state.width}-byte hashes`,
          );
        const earlier = askedNames.get(threatType);
        if (earlier !== undefined)
          throw new WebRiskListUpdateError(
            'repeated-list',
            state.name,
            `it is the same Web Risk list as "${earlier}" (${threatType}); ask for it once`,
          );
        askedNames.set(threatType, state.name);
        asked.push({ index, state, threatType });
      } catch (err) {
        results[index] = { name: state.name, error: err as Error };
      }
    });
    const fetched = await callsInParallel(asked, DIFFS_IN_PARALLEL, ({ state, threatType }) => this.diff(state, threatType));
    asked.forEach(({ index }, i) => (results[index] = fetched[i]!));
    return { lists: results, minimumWaitMs: undefined };
  }

  private async diff(state: ListState, threatType: WebRiskThreatTypeName): Promise<FetchedList> {
    const { maxUpdateEntries, maxDatabaseEntries } = this.settings.sizeConstraints;
    const request = create(ComputeThreatListDiffRequestSchema, {
      threatType: webRiskThreatTypeNumber(threatType),
      versionToken: state.version,
      constraints: {
        maxDiffEntries: maxUpdateEntries,
        maxDatabaseEntries,
        supportedCompressions: [CompressionType.RAW, CompressionType.RICE],
      },
    });
    const response = await callRpc(this.settings, 'ComputeThreatListDiff', request, sendRequest);
    // RF-3, SB-12: not before the moment the server recommends, cut to a day like any wait.
    const minimumWaitMs = msUntilTimestamp(response.recommendedNextDiff, this.clock.now(), MAX_MINIMUM_WAIT_MS);
    try {
      return { name: state.name, update: diffUpdate(response, state.name, this.settings.maxListEntries), minimumWaitMs };
    } catch (err) {
      return { name: state.name, error: err as Error };
    }
  }

  /** Web Risk has no listing of its lists: it has these three, one per threat type it shares with Safe Browsing. */
  listNames(): Promise<readonly string[]> {
    return Promise.resolve(WEB_RISK_THREAT_LISTS);
  }

  /**
   * One `hashes:search` per 4-byte prefix, a few at a time, the answers merged as one (a failure of any
   * is the search's failure). Each full hash is kept until its `expire_time`, the other hashes under the
   * prefixes until `negative_expire_time`: the shortest of those, as v4's negative cache duration.
   */
  async search(prefixes: readonly number[], _lists: readonly ListState[]): Promise<SearchResult> {
    if (prefixes.length === 0) return { fullHashes: [], serverFullHashCount: 0, cacheDurationMs: 0 };
    const answers = await callsInParallel(prefixes, SEARCHES_IN_PARALLEL, async (prefix) => {
      const request = create(SearchHashesRequestSchema, { hashPrefix: bytesOfPrefix32(prefix), threatTypes: this.searchTypes });
      return searchResult(await callRpc(this.settings, 'WebRiskSearchHashes', request, sendRequest), this.clock.now());
    });
    return mergeSearchResults(answers);
  }
}

/** A search answer as the client reads it, its moments made durations from `now`. */
function searchResult(response: SearchHashesResponse, now: number): SearchResult {
  const negativeCacheDurationMs = msUntilTimestamp(response.negativeExpireTime, now, MAX_CACHE_DURATION_MS);
  const fullHashes: FullHashMatch[] = [];
  for (const threat of response.threats) {
    if (threat.hash.length !== 32) continue;
    const details: ThreatDetail[] = [];
    for (const type of threat.threatTypes) {
      const name = webRiskThreatTypeName(type);
      const threatType = name === undefined ? undefined : CLIENT_THREAT_TYPES[name];
      if (threatType !== undefined && !details.some((d) => d.threatType === threatType)) details.push({ threatType, attributes: [] });
    }
    if (details.length === 0) continue;
    fullHashes.push({
      fullHash: latin1OfBytes(threat.hash),
      details,
      cacheDurationMs: msUntilTimestamp(threat.expireTime, now, MAX_CACHE_DURATION_MS),
    });
  }
  return {
    fullHashes,
    // Every threat counts, ignored ones too: only an answer without any may be cached longer (SB-8).
    serverFullHashCount: response.threats.length,
    cacheDurationMs: negativeCacheDurationMs ?? 0,
    negativeCacheDurationMs,
  };
}

/**
 * A computeDiff answer as the store's update; throws WebRiskListUpdateError or RiceDecodeError, and
 * ListTooLargeError, before decoding anything, when it announces more than `maxEntries` entries.
 */
function diffUpdate(message: ComputeThreatListDiffResponse, listName: string, maxEntries: number): HashListUpdate {
  const fail = (reason: WebRiskListFailure, detail: string) => new WebRiskListUpdateError(reason, listName, detail);
  const additions = additionSets(message.additions);
  const removals = removalSets(message.removals);
  const announced = Math.max(announcedEntries(additions), announcedEntries(removals));
  if (announced > maxEntries) throw new ListTooLargeError(listName, announced, maxEntries);
  let partial: boolean;
  if (message.responseType === ResponseType.RESET) partial = false;
  else if (message.responseType === ResponseType.DIFF) partial = true;
  else throw fail('unknown-response-type', `response_type is ${message.responseType}, neither DIFF (1) nor RESET (2)`);
  if (message.newVersionToken.length === 0)
    throw fail('missing-state', 'new_version_token is empty, so the next diff could not say which list the client holds');
  return {
    partial,
    version: message.newVersionToken,
    // SB-9: applied removals first, then additions, and the checksum verified, by the store.
    removals: removalsOf(removals, fail),
    additions: { width: 4, values: additionsOf(additions, fail) },
    checksum: message.checksum !== undefined && message.checksum.sha256.length > 0 ? message.checksum.sha256 : undefined,
  };
}

/** Web Risk's additions as v4's entry sets: each RawHashes one set, the Rice-coded prefixes another. */
function additionSets(additions: ThreatEntryAdditions | undefined): EntrySet[] {
  if (additions === undefined) return [];
  const sets: EntrySet[] = additions.rawHashes.map((rawHashes) => ({ rawHashes }));
  if (additions.riceHashes !== undefined) sets.push({ riceHashes: v4Rice(additions.riceHashes) });
  return sets;
}

/** Web Risk's removals as one of v4's entry sets, or none. */
function removalSets(removals: ThreatEntryRemovals | undefined): EntrySet[] {
  if (removals === undefined || (removals.rawIndices === undefined && removals.riceIndices === undefined)) return [];
  return [{ rawIndices: removals.rawIndices, riceIndices: removals.riceIndices === undefined ? undefined : v4Rice(removals.riceIndices) }];
}

/** Web Risk's RiceDeltaEncoding is v4's with `entry_count` for `num_entries`. */
function v4Rice(encoding: RiceDeltaEncoding) {
  return {
    firstValue: encoding.firstValue,
    riceParameter: encoding.riceParameter,
    numEntries: encoding.entryCount,
    encodedData: encoding.encodedData,
  };
}
