// The limits the API documents for requests, checked once a request is decoded, whatever form it came
// in (query string, `$req`, binary or JSON body), so that the server's handlers only see sane requests.

import type { SizeConstraints } from '../../proto/v5.ts';
import { WEB_RISK_THREAT_TYPE_NAMES, webRiskThreatTypeName } from '../../lists/web-risk-lists.ts';
import { checkListName } from '../list-name.ts';
import { parseSearchFilter } from './search-filter.ts';
import type { RpcCall } from './routes.ts';
import { WireError } from '../wire-error.ts';

/** SearchHashesRequest: "Clients MUST NOT send more than 1000 hash prefixes" (docs/api.md §1). */
export const MAX_HASH_PREFIXES = 1000;
/** SearchHashesRequest: currently each hash prefix must be exactly 4 bytes (docs/api.md §1). */
const V5_HASH_PREFIX_LENGTH = 4;
/** urls.search: "Clients MUST NOT send more than 50 URLs" (docs/api.md §1). */
export const MAX_SEARCH_URLS = 50;
/** v4 threatMatches:find: the Lookup API takes at most 500 URLs per request. */
export const MAX_THREAT_MATCH_URLS = 500;
/**
 * v4 threatListUpdates:fetch: browsers ask for a dozen or so (threat type, platform, entry type) triples;
 * every triple answered can carry a whole list, so the count is bounded and a triple may be asked once.
 */
export const MAX_LIST_UPDATE_REQUESTS = 100;
/** v4 ThreatEntry.hash: 4..32 bytes (docs/api.md §2); Web Risk's hash_prefix alike. */
const V4_HASH_LENGTH = { min: 4, max: 32 } as const;
/**
 * A reported URI is kept for the operator (server/operator/submissions.ts): long enough for any page
 * address people share, short enough that the reports kept stay a few megabytes.
 */
const MAX_SUBMITTED_URI_LENGTH = 4096;

/** Throws INVALID_ARGUMENT when a decoded request breaks a documented rule. */
export function checkRequestRules(call: RpcCall): void {
  switch (call.rpc) {
    case 'SearchHashes': {
      const prefixes = call.request.hashPrefixes;
      if (prefixes.length === 0) {
        throw invalid(`hashPrefixes is required: send 1 to ${MAX_HASH_PREFIXES} hash prefixes of ${V5_HASH_PREFIX_LENGTH} bytes`);
      }
      if (prefixes.length > MAX_HASH_PREFIXES) {
        throw invalid(`${prefixes.length} hashPrefixes sent; at most ${MAX_HASH_PREFIXES} are allowed per request`);
      }
      prefixes.forEach((prefix, i) => {
        if (prefix.length !== V5_HASH_PREFIX_LENGTH) {
          throw invalid(
            `hashPrefixes[${i}] is ${prefix.length} bytes long; each hash prefix must be exactly ${V5_HASH_PREFIX_LENGTH} bytes`,
          );
        }
      });
      // The v5 SearchHashesRequest has no field 2; only v5alpha1 knows `filter` (docs/api.md §1).
      if (call.request.filter !== '' && call.apiVersion !== 'v5alpha1') {
        throw invalid('filter is only available under /v5alpha1/');
      }
      parseSearchFilter(call.request.filter);
      return;
    }
    case 'GetHashList':
      checkListName(call.request.name, 'name');
      checkSizeConstraints(call.request.sizeConstraints);
      return;
    case 'BatchGetHashLists': {
      const names = call.request.names;
      if (names.length === 0) throw invalid('names is required: name at least one hash list, e.g. names=se-4b');
      const seen = new Set<string>();
      names.forEach((name, i) => {
        checkListName(name, `names[${i}]`);
        if (seen.has(name)) throw invalid(`names[${i}] repeats ${JSON.stringify(name)}; name each list once`);
        seen.add(name);
      });
      checkSizeConstraints(call.request.sizeConstraints);
      return;
    }
    case 'ListHashLists':
      if (call.request.pageSize < 0) throw invalid('pageSize must not be negative');
      return;
    case 'SearchUrls': {
      const count = call.request.urls.length;
      if (count === 0) throw invalid(`urls is required: send 1 to ${MAX_SEARCH_URLS} URLs`);
      if (count > MAX_SEARCH_URLS) throw invalid(`${count} urls sent; at most ${MAX_SEARCH_URLS} are allowed per request`);
      return;
    }
    case 'FindFullHashes': {
      const entries = call.request.threatInfo?.threatEntries ?? [];
      entries.forEach((entry, i) => {
        const length = entry.hash.length;
        if (length < V4_HASH_LENGTH.min || length > V4_HASH_LENGTH.max) {
          throw invalid(
            `threatInfo.threatEntries[${i}].hash is ${length} bytes long; hash prefixes have ${V4_HASH_LENGTH.min} to ${V4_HASH_LENGTH.max} bytes`,
          );
        }
      });
      // Google documents no limit for v4; sbkit takes v5's, so that a proxy can pass any request it
      // accepts to a v5 upstream in one search.
      if (entries.length > MAX_HASH_PREFIXES) {
        throw invalid(
          `${entries.length} threatInfo.threatEntries sent; at most ${MAX_HASH_PREFIXES} hash prefixes are allowed per request`,
        );
      }
      return;
    }
    case 'FindThreatMatches': {
      const count = call.request.threatInfo?.threatEntries.length ?? 0;
      if (count > MAX_THREAT_MATCH_URLS)
        throw invalid(`${count} threatInfo.threatEntries sent; at most ${MAX_THREAT_MATCH_URLS} URLs are allowed per request`);
      return;
    }
    case 'FetchThreatListUpdates': {
      const requests = call.request.listUpdateRequests;
      if (requests.length > MAX_LIST_UPDATE_REQUESTS) {
        throw invalid(`${requests.length} listUpdateRequests sent; at most ${MAX_LIST_UPDATE_REQUESTS} are allowed per request`);
      }
      const seen = new Set<string>();
      requests.forEach(({ threatType, platformType, threatEntryType }, i) => {
        const triple = `${threatType}/${platformType}/${threatEntryType}`;
        if (seen.has(triple))
          throw invalid(
            `listUpdateRequests[${i}] repeats the list (threatType ${threatType}, platformType ${platformType}, threatEntryType ${threatEntryType}); ask for each list once`,
          );
        seen.add(triple);
      });
      return;
    }
    case 'ListThreatLists':
    case 'CreateThreatHit':
      return;
    case 'ComputeThreatListDiff': {
      checkWebRiskType(call.request.threatType, 'threatType');
      const constraints = call.request.constraints;
      if (constraints !== undefined && (constraints.maxDiffEntries < 0 || constraints.maxDatabaseEntries < 0)) {
        throw invalid('constraints must not be negative (0 means no limit)');
      }
      return;
    }
    case 'SearchUris':
      if (call.request.uri === '') throw invalid('uri is required: the URI to check, e.g. uri=http://example.com/');
      checkWebRiskTypes(call.request.threatTypes);
      return;
    case 'WebRiskSearchHashes': {
      const length = call.request.hashPrefix.length;
      if (length < V4_HASH_LENGTH.min || length > V4_HASH_LENGTH.max) {
        throw invalid(
          `hashPrefix is ${length} bytes long; send a prefix of ${V4_HASH_LENGTH.min} to ${V4_HASH_LENGTH.max} bytes of the expression's SHA-256`,
        );
      }
      checkWebRiskTypes(call.request.threatTypes);
      return;
    }
    case 'CreateSubmission': {
      const uri = call.request.submission?.uri ?? '';
      if (uri === '') throw invalid('submission.uri is required: the URI to report');
      if (uri.length > MAX_SUBMITTED_URI_LENGTH) {
        throw invalid(`submission.uri is ${uri.length} characters long; a reported URI has at most ${MAX_SUBMITTED_URI_LENGTH}`);
      }
      return;
    }
  }
}

/** A Web Risk threat type that names a type: not THREAT_TYPE_UNSPECIFIED, nor a number Web Risk has not named. */
function checkWebRiskType(threatType: number, field: string): void {
  if (webRiskThreatTypeName(threatType) === undefined) {
    throw invalid(`${field} must be one of ${WEB_RISK_THREAT_TYPE_NAMES.join(', ')}, not ${threatType}`);
  }
}

/** A Web Risk search's threat types: at least one, each a known type. */
function checkWebRiskTypes(threatTypes: readonly number[]): void {
  if (threatTypes.length === 0) throw invalid(`threatTypes is required: name at least one of ${WEB_RISK_THREAT_TYPE_NAMES.join(', ')}`);
  threatTypes.forEach((threatType, i) => checkWebRiskType(threatType, `threatTypes[${i}]`));
}

function checkSizeConstraints(constraints: SizeConstraints | undefined): void {
  if (constraints === undefined) return;
  if (constraints.maxUpdateEntries < 0 || constraints.maxDatabaseEntries < 0) {
    throw invalid('sizeConstraints must not be negative (0 means no limit)');
  }
}

function invalid(message: string): WireError {
  return new WireError('INVALID_ARGUMENT', message);
}
