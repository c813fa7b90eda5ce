/**
 * sbkit: the public API.
 *
 * A URL check, as data:
 *
 *   URL ──canonicalizeUrl (SB-5)──▶ canonical URL ──urlExpressions (SB-6)──▶ ≤ 30 expressions
 *       ──expressionHash (SB-7)──▶ SHA-256 full hashes ──▶ 4-byte prefixes
 *       ──▶ local cache ──▶ local lists ──▶ hashes:search ──▶ cache ──▶ verdict (SB-8)
 *
 * A list update, as data:
 *
 *   feed ──▶ canonical expressions ──▶ full hashes ──▶ sorted snapshot (version N)
 *        ──▶ diff from the client's version (removal indices + additions) ──Rice (SB-10)──▶ HashList
 *        ──HTTP──▶ client removes, then adds (SB-9) ──▶ checksum verified ──▶ written atomically
 */
export { canonicalizeUrl, parseCanonicalUrl, formatCanonicalUrl, type CanonicalUrl } from './url/canonicalize.ts';
export { urlExpressions, expressionsOf } from './url/expressions.ts';
export { expressionHash, hashPrefix } from './url/hash.ts';
export { InvalidUrlError, type InvalidUrlReason } from './url/invalid-url.ts';
export {
  SafeBrowsingClient,
  SearchDeferredError,
  GOOGLE_SERVER,
  DEFAULT_THREAT_LISTS,
  GLOBAL_CACHE_LIST,
  ClientOptionError,
  type SafeBrowsingClientOptions,
  type Mode,
  type CheckResult,
  type ClientStats,
  type ClientEvent,
  type ListInfo,
  type UpdateSummary,
} from './client/safe-browsing-client.ts';
export type { Threat, Verdict, AnsweredBy } from './client/check.ts';
export type { ThreatTypeName, ThreatAttributeName } from './client/threats.ts';
export { HashListUpdateError, type HashListFailure } from './store/hash-list.ts';
export { DatabaseStorageError } from './store/database.ts';
export { RiceDecodeError } from './codec/index.ts';
export { createServer, type ServerOptions, type SafeBrowsingServer } from './server/server.ts';
export { LoadControl, type LoadControlSettings } from './server/guard/load-control.ts';
export { KeyRing, type GatewayKeys, GatewayKeysUnavailableError } from './server/ohttp/key-ring.ts';
export { SharedKeyRing } from './server/ohttp/shared-key-ring.ts';
export { createRelayApp, type RelayOptions } from './server/ohttp/relay.ts';
