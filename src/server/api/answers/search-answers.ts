// The answers of `hashes:search` from a server's own lists, encoded once per prefix and list version.
// Browsers search one prefix at a time (Firefox's form), and the prefixes searched most are those of
// listed pages, which every client that meets the page asks for: between two publications the answer
// for a prefix is the same bytes for all of them. So the answer of a one-prefix search is kept under its
// prefix and encoding (JSON's enums by name or by number apart), with what it was worked out from (each threat list's revision, the cache
// durations of the settings), and used again while those stand still, as encoded-answers.ts does for
// list answers under their tags.

import { BoundedMap } from '../../../store/bounded-map.ts';
import { prefix32OfBytes } from '../../../url/hash.ts';
import type { WireEncoding } from '../../../wire/encoding.ts';
import type { EncodedPayload } from '../../../wire/payload.ts';
import { encodeWireResponse } from '../../../wire/rest/server-response.ts';
import type { RpcCall } from '../../../wire/rest/routes.ts';
import type { ListCatalog } from '../../catalog.ts';
import { cacheControlOf } from './answer-caching.ts';
import { type AnswerForm, answerFormOf } from './answer-form.ts';
import type { FullHashSource } from '../full-hash-source.ts';
import type { ApiSettings } from '../settings.ts';
import { searchHashesAnswer, searchPrefixes } from '../v5.ts';

/** Prefixes whose answers are kept at once, per encoding; a newcomer beyond them pushes out the least recently used. */
const MAX_KEPT = 4096;

/** A search's answer as it is sent. */
export interface SearchAnswer {
  payload: EncodedPayload;
  cacheControl: string;
}

/** A kept answer, and what it was worked out from. */
interface Kept {
  /** The sum of the threat lists' revisions: revisions only grow, so any publication changes it. */
  revisions: number;
  positiveCacheDurationMs: number;
  negativeCacheDurationMs: number;
  answer: SearchAnswer;
}

/**
 * Answers `hashes:search` calls from `source` at once, when it holds its full hashes in memory (a
 * server's own lists; not a proxy, whose searches go upstream): undefined for every other call.
 */
export class SearchAnswers {
  /** Per encoding, the answers kept by prefix; JSON's with enums by number apart from those by name. */
  private readonly kept: Record<AnswerForm, BoundedMap<number, Kept>> = {
    protobuf: new BoundedMap(MAX_KEPT),
    json: new BoundedMap(MAX_KEPT),
    'json, enums as numbers': new BoundedMap(MAX_KEPT),
  };

  constructor(
    private readonly catalog: ListCatalog,
    private readonly source: FullHashSource,
    private readonly settings: ApiSettings,
  ) {}

  /** `enumsAsNumbers`: a JSON answer gives its enums by number, as the request asked (DecodedWireRequest). */
  answer(call: RpcCall, encoding: WireEncoding, enumsAsNumbers = false): SearchAnswer | undefined {
    const findNow = this.source.findNow;
    if (call.rpc !== 'SearchHashes' || findNow === undefined) return undefined;
    const { request } = call;
    // One prefix, no v5alpha1 filter, no unknown fields: the plain form, whose answer depends on nothing else.
    const single = request.hashPrefixes.length === 1 && request.filter === '' && request.$unknown === undefined;
    const prefix = single ? prefix32OfBytes(request.hashPrefixes[0]!) : 0;
    const { positiveCacheDurationMs, negativeCacheDurationMs } = this.settings;
    let revisions = 0;
    for (const history of this.catalog.threatLists()) revisions += history.revision;
    const byPrefix = this.kept[answerFormOf(encoding, enumsAsNumbers)];
    if (single) {
      const kept = byPrefix.get(prefix);
      if (
        kept !== undefined &&
        kept.revisions === revisions &&
        kept.positiveCacheDurationMs === positiveCacheDurationMs &&
        kept.negativeCacheDurationMs === negativeCacheDurationMs
      ) {
        return kept.answer;
      }
    }
    const message = searchHashesAnswer(request, findNow(searchPrefixes(request)));
    const answer = {
      payload: encodeWireResponse('SearchHashes', message, encoding, enumsAsNumbers),
      cacheControl: cacheControlOf('SearchHashes', message, this.settings),
    };
    if (single) byPrefix.keep(prefix, { revisions, positiveCacheDurationMs, negativeCacheDurationMs, answer });
    return answer;
  }
}
