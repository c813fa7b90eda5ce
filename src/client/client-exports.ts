// What both client entries export, `sbkit/client` (client/index.ts) and `sbkit/browser` (browser.ts),
// listed once so that the two cannot drift apart: the results, the lists and the errors of a client on
// any runtime. Each entry adds its own SafeBrowsingClient and options, and what only it offers (Node's:
// v4 and binary HTTP's errors; the browser's: the URL pipeline). Nothing here reaches a Node built-in,
// since the browser's entry re-exports all of it.

export type { ClientStats } from './client-core.ts';
export type { CheckResult, CheckedResult, UncheckedResult } from './url-checks.ts';
export type { UpdateSummary } from './updates/list-updater.ts';
export type { ListInfo } from './updates/local-lists.ts';
export type { UpdateDeferral } from './updates/update-schedule.ts';
export { GOOGLE_SERVER, type Mode, type ClientEvent } from './options.ts';
export type { Threat, Verdict, AnsweredBy } from './check.ts';
export type { FullHash, ThreatDetail } from '../lists/threat-details.ts';
export type { ThreatTypeName, ThreatAttributeName } from '../lists/threat-types.ts';
export { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST } from '../lists/known-lists.ts';
// Every error a client can meet on any runtime, each with its stable code (docs/errors.md).
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
  UpdateLoopError,
  type UpdateLoopReason,
} from './client-errors.ts';
export { InvalidUrlError, type InvalidUrlReason } from '../url/invalid-url.ts';
export { WireResponseError, OhttpError, type OhttpFailure } from '../wire/wire-error.ts';
export { HashListUpdateError, type HashListFailure } from '../store/hash-list.ts';
export { DatabaseFileError, DatabaseStorageError } from '../store/list-store.ts';
export { RiceDecodeError, type RiceDecodeReason } from '../codec/rice-error.ts';
