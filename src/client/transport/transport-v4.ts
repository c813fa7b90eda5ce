import { create } from '@bufbuild/protobuf';
import {
  type FetchThreatListUpdatesResponse_ListUpdateResponse as ListUpdateResponse,
  FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType as ResponseType,
  FetchThreatListUpdatesRequestSchema,
  FindFullHashesRequestSchema,
  CompressionType,
  PlatformType,
  ThreatEntryType,
  ThreatType,
  type ThreatMatch,
} from '../../proto/v4.ts';
import type { HashListUpdate } from '../../store/hash-list.ts';
import { WireResponseError } from '../../wire/wire-error.ts';
import { durationToMs } from '../../wire/duration.ts';
import { VERSION } from '../../version.ts';
import type { FullHashMatch } from '../../lists/threat-details.ts';
import {
  type FetchedList,
  type ListState,
  type SearchResult,
  type ServerSettings,
  type Transport,
  unlessUnlisted,
  type UpdateResponse,
} from './transport.ts';
import { bytesOfPrefix32 } from '../../url/hash-string.ts';
import { callRpc } from './rpc.ts';
import { sendRequest } from './http.ts';
import {
  canonicalV4ListName,
  type V4List,
  V4_LIST_NAMES,
  v4ListKey,
  v4ListOf,
  v4ThreatTypeName,
  v5ListNameOf,
} from '../../lists/v4-lists.ts';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import { ListTooLargeError, type V4ListFailure, V4ListUpdateError } from '../client-errors.ts';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';
import { additionsOf, announcedEntries, removalsOf } from './threat-entry-sets.ts';

/** docs/api.md §2 ClientInfo: v4 names the client in every request (v5 uses the User-Agent instead, SB-14). */
const CLIENT_INFO = { clientId: 'sbkit', clientVersion: VERSION };

interface AskedList {
  /** Position in the caller's array, where its result goes. */
  index: number;
  state: ListState;
  list: V4List;
  key: string;
}

/**
 * Safe Browsing v4: `threatListUpdates:fetch` for updates, `fullHashes:find` for lookups, with v5 list
 * names on the outside (SB-14 in reverse) so that one local database serves both protocols.
 *
 * `fullHashes:find` asks about the threat types and platforms of the lists given to the constructor
 * and sends, as `client_states`, the states the caller holds for them when it searches. No lists (the
 * client's no-storage mode keeps none) means every list of SB-11 that v4 has.
 */
export class V4Transport implements Transport {
  readonly protocol = 'v4';
  private readonly searchLists: readonly V4List[];

  /** Throws NoV4ListError for a list v4 never had, such as the global cache `gc-32b`. */
  constructor(
    private readonly settings: ServerSettings,
    lists: readonly string[] = V4_LIST_NAMES,
  ) {
    const names = lists.length > 0 ? lists : V4_LIST_NAMES;
    const byKey = new Map(names.map((name) => v4ListOf(name)).map((list) => [v4ListKey(list), list]));
    this.searchLists = [...byKey.values()];
  }

  /**
   * One `threatListUpdates:fetch` for all lists that have a v4 triple. Lists without one, or asked
   * twice under two names, get an error without being sent. Answers are matched to requests by triple,
   * whatever their order; a list without exactly one answer gets an error, while an answer for a list
   * that was not asked for makes the whole call fail (WireResponseError): that server misread the request.
   */
  async fetchUpdates(lists: readonly ListState[]): Promise<UpdateResponse> {
    const results: FetchedList[] = [];
    const asked: AskedList[] = [];
    const askedNames = new Map<string, string>();
    lists.forEach((state, index) => {
      try {
        const list = v4ListOf(state.name);
        if (state.width !== 4) {
          throw new V4ListUpdateError(
            'not-four-bytes',
            state.name,
            `v4 lists hold 4-byte prefixes; this list is kept with ${state.width}-byte hashes`,
          );
        }
        const key = v4ListKey(list);
        const earlier = askedNames.get(key);
        if (earlier !== undefined) {
          throw new V4ListUpdateError(
            'repeated-list',
            state.name,
            `it is the same v4 list as "${earlier}" (${describeV4List(list)}); ask for it once`,
          );
        }
        askedNames.set(key, state.name);
        asked.push({ index, state, list, key });
      } catch (err) {
        results[index] = { name: state.name, error: err as Error };
      }
    });
    if (asked.length === 0) return { lists: results, minimumWaitMs: undefined };

    const { maxUpdateEntries, maxDatabaseEntries } = this.settings.sizeConstraints;
    const request = create(FetchThreatListUpdatesRequestSchema, {
      client: CLIENT_INFO,
      listUpdateRequests: asked.map(({ state, list }) => ({
        ...list,
        state: state.version,
        constraints: { maxUpdateEntries, maxDatabaseEntries, supportedCompressions: [CompressionType.RAW, CompressionType.RICE] },
      })),
    });
    const response = await callRpc(this.settings, 'FetchThreatListUpdates', request, sendRequest);

    const answers = new Map<string, ListUpdateResponse[]>(asked.map(({ key }) => [key, []]));
    for (const answer of response.listUpdateResponses) {
      const found = answers.get(v4ListKey(answer));
      if (found === undefined) {
        throw new WireResponseError(
          'malformed-body',
          200,
          undefined,
          `the server answered list ${describeV4List(answer)}, which was not asked for; it cannot be trusted with the others`,
        );
      }
      found.push(answer);
    }
    for (const { index, state, list, key } of asked) {
      const found = answers.get(key)!;
      try {
        if (found.length !== 1) {
          const [reason, what] =
            found.length === 0 ? (['missing-response', 'no update'] as const) : (['repeated-response', `${found.length} updates`] as const);
          throw new V4ListUpdateError(reason, state.name, `the server sent ${what} for ${describeV4List(list)}; expected exactly one`);
        }
        results[index] = {
          name: state.name,
          update: listUpdate(found[0]!, state.name, this.settings.maxListEntries),
          minimumWaitMs: undefined,
        };
      } catch (err) {
        results[index] = { name: state.name, error: err as Error };
      }
    }
    // v4 has one wait for the whole call; the lists' own waits stay undefined (transport.ts).
    return { lists: results, minimumWaitMs: durationToMs(response.minimumWaitDuration, MAX_MINIMUM_WAIT_MS) };
  }

  /** `GET /v4/threatLists`: the v5 names of the triples the server publishes that have one. */
  async listNames(): Promise<readonly string[] | undefined> {
    const response = await unlessUnlisted(callRpc(this.settings, 'ListThreatLists', create(EmptySchema), sendRequest));
    if (response === undefined) return undefined;
    const names = new Set<string>();
    for (const list of response.threatLists) {
      const name = v5ListNameOf(list);
      if (name !== undefined) names.add(name);
    }
    return [...names];
  }

  /**
   * One `fullHashes:find` for 4-byte prefixes. The negative cache duration is also the response's cache
   * duration (0 without one), each match keeps its own; `minimumWaitMs` is RF-3's wait before the next
   * search, which the caller must obey.
   */
  async search(prefixes: readonly number[], lists: readonly ListState[]): Promise<SearchResult> {
    const unique = <T>(values: T[]): T[] => [...new Set(values)];
    // docs/api.md §2 client_states: the states of the lists the client holds now.
    const held = new Map(
      lists
        .filter((list) => canonicalV4ListName(list.name) !== undefined)
        .map((list) => [v4ListKey(v4ListOf(list.name)), list.version] as const),
    );
    const clientStates = this.searchLists
      .map((list) => held.get(v4ListKey(list)))
      .filter((s): s is Uint8Array => s !== undefined && s.length > 0);
    const request = create(FindFullHashesRequestSchema, {
      client: CLIENT_INFO,
      clientStates,
      threatInfo: {
        threatTypes: unique(this.searchLists.map((l) => l.threatType)),
        platformTypes: unique(this.searchLists.map((l) => l.platformType)),
        threatEntryTypes: unique(this.searchLists.map((l) => l.threatEntryType)),
        threatEntries: prefixes.map((prefix) => ({ hash: bytesOfPrefix32(prefix) })),
      },
    });
    const response = await callRpc(this.settings, 'FindFullHashes', request, sendRequest);
    const negativeCacheDurationMs = durationToMs(response.negativeCacheDuration, MAX_CACHE_DURATION_MS);
    return {
      fullHashes: fullHashMatches(response.matches),
      // Every match counts, ignored ones too: only an answer without any may be cached longer (SB-8).
      serverFullHashCount: response.matches.length,
      cacheDurationMs: negativeCacheDurationMs ?? 0,
      negativeCacheDurationMs,
      minimumWaitMs: durationToMs(response.minimumWaitDuration, MAX_MINIMUM_WAIT_MS),
    };
  }
}

/**
 * A ListUpdateResponse as the store's update; throws V4ListUpdateError or RiceDecodeError, and
 * ListTooLargeError, before decoding anything, when its sets announce more than `maxEntries` additions
 * or removals.
 */
function listUpdate(message: ListUpdateResponse, listName: string, maxEntries: number): HashListUpdate {
  const fail = (reason: V4ListFailure, detail: string) => new V4ListUpdateError(reason, listName, detail);
  const announced = Math.max(announcedEntries(message.additions), announcedEntries(message.removals));
  if (announced > maxEntries) throw new ListTooLargeError(listName, announced, maxEntries);
  // SB-14 response point 1: the ResponseType enum is v5's partial_update boolean.
  let partial: boolean;
  if (message.responseType === ResponseType.FULL_UPDATE) partial = false;
  else if (message.responseType === ResponseType.PARTIAL_UPDATE) partial = true;
  else throw fail('unknown-response-type', `response_type is ${message.responseType}, neither FULL_UPDATE (2) nor PARTIAL_UPDATE (1)`);
  // docs/api.md §3 pitfall 4: without a state the next request could not say what the client holds.
  if (message.newClientState.length === 0)
    throw fail('missing-state', 'new_client_state is empty, so the update cannot be continued later');
  return {
    partial,
    // SB-14: the v4 state is the v5 version, unchanged.
    version: message.newClientState,
    removals: removalsOf(message.removals, fail),
    additions: { width: 4, values: additionsOf(message.additions, fail) },
    checksum: message.checksum !== undefined && message.checksum.sha256.length > 0 ? message.checksum.sha256 : undefined,
  };
}

/**
 * v4 matches as the client's full hashes: a match whose hash is not 32 bytes, or whose threat type the
 * client does not know, is ignored whole. Matches of one hash become one FullHashMatch with a detail
 * per threat type (SB-14: one FullHash carries several details), cached for the shortest of their
 * durations.
 */
function fullHashMatches(matches: readonly ThreatMatch[]): FullHashMatch[] {
  const byHash = new Map<string, FullHashMatch>();
  for (const match of matches) {
    const hash = match.threat?.hash;
    const threatType = v4ThreatTypeName(match.threatType);
    if (hash === undefined || hash.length !== 32 || threatType === undefined) continue;
    const fullHash = Buffer.from(hash).toString('latin1');
    const cacheDurationMs = durationToMs(match.cacheDuration, MAX_CACHE_DURATION_MS);
    const known = byHash.get(fullHash);
    if (known === undefined) {
      byHash.set(fullHash, { fullHash, details: [{ threatType, attributes: [] }], cacheDurationMs });
      continue;
    }
    if (!known.details.some((d) => d.threatType === threatType)) known.details.push({ threatType, attributes: [] });
    if (cacheDurationMs !== undefined) known.cacheDurationMs = Math.min(known.cacheDurationMs ?? cacheDurationMs, cacheDurationMs);
  }
  return [...byHash.values()];
}

/** A triple as people read it, e.g. `SOCIAL_ENGINEERING/ANY_PLATFORM/URL`, for error messages. */
export function describeV4List(list: V4List): string {
  return `${enumName(ThreatType, list.threatType)}/${enumName(PlatformType, list.platformType)}/${enumName(ThreatEntryType, list.threatEntryType)}`;
}

// TypeScript's numeric enums map values back to names; values the .proto does not name show as numbers.
function enumName(values: object, value: number): string {
  return (values as Record<number, string | undefined>)[value] ?? String(value);
}
