import { decodeRice32 } from '../../codec/rice32.ts';
import { decodeRice128, decodeRice256, decodeRice64 } from '../../codec/rice-wide.ts';
import type { HashListAnswer as HashListMessage, SearchHashesAnswer } from '../../wire/protobuf/v5-binary.ts';
import { type HashListUpdate, hashCount, type SortedHashes } from '../../store/hash-list.ts';
import type { HashWidth } from '../../lists/list-name.ts';
import { WireResponseError } from '../../wire/wire-error.ts';
import { durationToMs } from '../../wire/duration.ts';
import { ListTooLargeError } from '../client-errors.ts';
import { latin1OfBytes } from '../../url/byte-string.ts';
import { MAX_CACHE_DURATION_MS, MAX_MINIMUM_WAIT_MS } from '../../wire/duration-caps.ts';
import { knownDetail, type FullHashMatch, type ThreatDetail } from '../../lists/threat-details.ts';
import {
  type FetchedList,
  type ListState,
  type SearchResult,
  type ServerSettings,
  type Transport,
  unlessUnlisted,
  type UpdateResponse,
} from './transport.ts';

/**
 * A `HashList` message as the store's update, Rice-decoded; throws RiceDecodeError on bad data, and
 * ListTooLargeError, before decoding anything, when its header announces more than `maxEntries`
 * additions or removals (`listName` names the list in that error).
 */
export function hashListUpdate(message: HashListMessage, expectedWidth: HashWidth, listName: string, maxEntries: number): HashListUpdate {
  const additionsCount = message.compressedAdditions.value === undefined ? 0 : announcedEntries(message.compressedAdditions.value);
  const removalsCount = message.compressedRemovals === undefined ? 0 : announcedEntries(message.compressedRemovals);
  const announced = Math.max(additionsCount, removalsCount);
  if (announced > maxEntries) throw new ListTooLargeError(listName, announced, maxEntries);
  const removals = decodeRice32(message.compressedRemovals);
  const additions = additionsOf(message, expectedWidth);
  const checksum = message.sha256Checksum.length > 0 ? message.sha256Checksum : undefined;
  // docs/api.md: the checksum is omitted "when no update was provided". proto3 cannot tell an absent
  // partial_update from false ("full replacement"), so a list answered with nothing but a version would
  // read as "replace with nothing": it is read as the no-change answer it is.
  const noUpdate = checksum === undefined && removals.length === 0 && hashCount(additions) === 0;
  return { partial: message.partialUpdate || noUpdate, version: message.version, removals, additions, checksum };
}

/** SB-10: a Rice-coded set is its first value plus `entries_count` deltas. */
function announcedEntries(encoded: { entriesCount: number }): number {
  return encoded.entriesCount + 1;
}

function additionsOf(message: HashListMessage, expectedWidth: HashWidth): SortedHashes {
  const additions = message.compressedAdditions;
  switch (additions.case) {
    case 'additionsFourBytes':
      return { width: 4, values: decodeRice32(additions.value) };
    case 'additionsEightBytes':
      return { width: 8, bytes: decodeRice64(additions.value) };
    case 'additionsSixteenBytes':
      return { width: 16, bytes: decodeRice128(additions.value) };
    case 'additionsThirtyTwoBytes':
      return { width: 32, bytes: decodeRice256(additions.value) };
    default:
      // No additions: an empty set of the width the list already has.
      return expectedWidth === 4 ? { width: 4, values: new Uint32Array(0) } : { width: expectedWidth, bytes: new Uint8Array(0) };
  }
}

/** Full hashes of a search answer that are 32 bytes long, with the details the client understands. */
function usableFullHashes(
  fullHashes: readonly { fullHash: Uint8Array; details: readonly { threatType: number; attributes: readonly number[] }[] }[],
): FullHashMatch[] {
  const out: FullHashMatch[] = [];
  for (const { fullHash, details } of fullHashes) {
    if (fullHash.length !== 32) continue;
    const known = details.map((d) => knownDetail(d.threatType, d.attributes)).filter((d): d is ThreatDetail => d !== undefined);
    if (known.length > 0) out.push({ fullHash: latin1OfBytes(fullHash), details: known });
  }
  return out;
}

/** Lists asked for per page of `GET /v5/hashLists`, and the most pages read. */
const LIST_PAGE_SIZE = 1000;
const MAX_LIST_PAGES = 16;

/**
 * v5's client RPCs, encoded and sent over node:http, fetch or a relay: in binary protobuf by the
 * client's own reader (v5-binary-rpcs.ts), in JSON by the generated code (v5-protobuf-rpcs.ts, Node only).
 */
export interface V5Rpcs {
  batchGetHashLists(lists: readonly ListState[]): Promise<{ hashLists: readonly HashListMessage[] }>;
  listHashLists(pageSize: number, pageToken: string): Promise<{ names: readonly string[]; nextPageToken: string }>;
  searchHashes(prefixes: readonly number[]): Promise<SearchHashesAnswer>;
}

/** Safe Browsing v5: `hashLists:batchGet` for updates, `hashes:search` for lookups, the answers checked. */
export class V5Transport implements Transport {
  readonly protocol = 'v5';

  constructor(
    private readonly settings: ServerSettings,
    private readonly rpcs: V5Rpcs,
  ) {}

  async fetchUpdates(lists: readonly ListState[]): Promise<UpdateResponse> {
    const response = await this.rpcs.batchGetHashLists(lists);
    if (response.hashLists.length !== lists.length) {
      throw new WireResponseError(
        'malformed-body',
        200,
        undefined,
        `the server answered ${response.hashLists.length} lists for the ${lists.length} asked for`,
      );
    }
    const fetched = lists.map((list, i): FetchedList => {
      const message = response.hashLists[i]!;
      if (message.name !== '' && message.name !== list.name) {
        return {
          name: list.name,
          error: new WireResponseError(
            'malformed-body',
            200,
            undefined,
            `the server answered list "${message.name}" in the place of "${list.name}"`,
          ),
        };
      }
      try {
        return {
          name: list.name,
          update: hashListUpdate(message, list.width, list.name, this.settings.maxListEntries),
          minimumWaitMs: durationToMs(message.minimumWaitDuration, MAX_MINIMUM_WAIT_MS),
        };
      } catch (err) {
        return { name: list.name, error: err as Error };
      }
    });
    return { lists: fetched, minimumWaitMs: undefined };
  }

  async listNames(): Promise<readonly string[] | undefined> {
    const names: string[] = [];
    let pageToken = '';
    // Bounded: a server whose pages never end is broken or hostile, and SB-11 has a handful of lists.
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const answer = await unlessUnlisted(this.rpcs.listHashLists(LIST_PAGE_SIZE, pageToken));
      if (answer === undefined) return undefined;
      for (const name of answer.names) names.push(name);
      if (answer.nextPageToken === '') return names;
      pageToken = answer.nextPageToken;
    }
    throw new WireResponseError('malformed-body', 200, undefined, `the server's list of lists runs past ${MAX_LIST_PAGES} pages`);
  }

  async search(prefixes: readonly number[], _lists: readonly ListState[]): Promise<SearchResult> {
    const response = await this.rpcs.searchHashes(prefixes);
    const fullHashes = usableFullHashes(response.fullHashes.map((f) => ({ fullHash: f.fullHash, details: f.fullHashDetails })));
    return {
      fullHashes,
      serverFullHashCount: response.fullHashes.length,
      cacheDurationMs: durationToMs(response.cacheDuration, MAX_CACHE_DURATION_MS) ?? 0,
    };
  }
}
