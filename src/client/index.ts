/**
 * `sbkit/client`: the Safe Browsing client. It keeps local lists current within the request-frequency
 * rules (RF-1..5, SB-12) and checks URLs by the SB-8 procedure of its mode.
 *
 * @packageDocumentation
 * @module sbkit/client
 */
export {
  SafeBrowsingClient,
  type CheckResult,
  type CheckedResult,
  type UncheckedResult,
  type ClientStats,
} from './safe-browsing-client.ts';
export type { UpdateSummary } from './updates/list-updater.ts';
export type { ListInfo } from './updates/local-lists.ts';
export type { UpdateDeferral } from './updates/update-schedule.ts';
export { GOOGLE_SERVER, type SafeBrowsingClientOptions, type Mode, type ClientEvent } from './options.ts';
export type { Threat, Verdict, AnsweredBy } from './check.ts';
export type { FullHash, ThreatDetail } from '../lists/threat-details.ts';
export type { ThreatTypeName, ThreatAttributeName } from '../lists/threat-types.ts';
export { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST } from '../lists/known-lists.ts';
// Every error a client can meet, each with its stable code (docs/errors.md).
export { SbkitError } from '../sbkit-error.ts';
export { UnknownListError } from '../lists/unknown-list-error.ts';
export {
  type CheckError,
  type UpdateError,
  type ListUpdateFailure,
  ClientOptionError,
  ListsNotCurrentError,
  type ListsNotCurrentReason,
  ListTooLargeError,
  SearchDeferredError,
  TransportError,
  type TransportFailure,
  UnexpectedError,
  V4ListUpdateError,
  type V4ListFailure,
} from './client-errors.ts';
export { InvalidUrlError, type InvalidUrlReason } from '../url/invalid-url.ts';
export { NoV4ListError } from '../lists/v4-lists.ts';
export { WireResponseError, OhttpError, type OhttpFailure, BinaryHttpError } from '../wire/wire-error.ts';
export { HashListUpdateError, type HashListFailure } from '../store/hash-list.ts';
export { DatabaseFileError, DatabaseStorageError } from '../store/database.ts';
export { RiceDecodeError, type RiceDecodeReason } from '../codec/rice-error.ts';
