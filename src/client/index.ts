/**
 * `sbkit/client`: the Safe Browsing client. It keeps local lists current within the request-frequency
 * rules (RF-1..5, SB-12) and checks URLs by the SB-8 procedure of its mode.
 *
 * @packageDocumentation
 * @module sbkit/client
 */
export { SafeBrowsingClient } from './safe-browsing-client.ts';
export type { SafeBrowsingClientOptions } from './options.ts';
// What sbkit/browser exports too (client-exports.ts), then the errors only Node's client meets: v4's,
// Web Risk's and binary HTTP's.
export * from './client-exports.ts';
export { V4ListUpdateError, type V4ListFailure, WebRiskListUpdateError, type WebRiskListFailure } from './client-errors.ts';
export { NoV4ListError } from '../lists/v4-lists.ts';
export { NoWebRiskListError } from '../lists/web-risk-lists.ts';
export { BinaryHttpError } from '../wire/wire-error.ts';
