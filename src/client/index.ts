/**
 * `sbkit/client`: the Safe Browsing client. It keeps local lists current within the request-frequency
 * rules (RF-1..5, SB-12) and checks URLs by the SB-8 procedure of its mode.
 *
 * @packageDocumentation
 * @module sbkit/client
 */
export { SafeBrowsingClient, type CheckResult, type ClientStats } from './safe-browsing-client.ts';
export { SearchDeferredError } from './hash-searcher.ts';
export type { ListInfo, UpdateSummary } from './list-updater.ts';
export { GOOGLE_SERVER, ClientOptionError, type SafeBrowsingClientOptions, type Mode, type ClientEvent } from './options.ts';
export type { Threat, Verdict, AnsweredBy } from './check.ts';
export type { ThreatTypeName, ThreatAttributeName } from '../lists/threat-types.ts';
export { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST } from '../lists/known-lists.ts';
export { HashListUpdateError, type HashListFailure } from '../store/hash-list.ts';
export { DatabaseStorageError } from '../store/database.ts';
export { RiceDecodeError } from '../codec/rice-error.ts';
