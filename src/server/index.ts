/**
 * `sbkit/server`: the parts of the Safe Browsing server, as a library — the HTTP server with the v5 and
 * v4 APIs over a catalog of lists (the embedded demo set, your own feeds, or a mirror of an upstream),
 * load control (LC-1..5), the Oblivious HTTP gateway's keys and relay (SB-2), and every error they can
 * meet. How `sbkit serve` assembles them, and the path a request takes through them:
 * docs/architecture.md.
 *
 * @packageDocumentation
 * @module sbkit/server
 */
export { createServer, type ServerOptions, type SafeBrowsingServer, ListenError } from './http/server.ts';
export type { ListCatalog } from './catalog.ts';
export { demoCatalog } from './demo.ts';
export { FeedLists, type ListLoadReport, type ReportedBadLine } from './feeds/feed-lists.ts';
export { readServerConfig, parseServerConfig, type ServerConfig } from './config/config.ts';
export { UpstreamMirror, type UpstreamOptions } from './proxy/upstream-mirror.ts';
export { LoadControl } from './guard/load-control.ts';
export type { LoadControlSettings } from './guard/load-control-settings.ts';
export { KeyRing, type GatewayKeys } from './ohttp/key-ring.ts';
export { SharedKeyRing } from './ohttp/shared-key-ring.ts';
export { createRelayApp, type RelayOptions } from './ohttp/relay.ts';
export { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http/http-limits.ts';
export type { Logger, LogFields, LogSink } from './logger.ts';
// Every error the server can meet or report, each with its stable code (docs/errors.md); those it answers
// clients with carry the code in the body.
export { SbkitError } from '../sbkit-error.ts';
export { ConfigError } from './config/config-error.ts';
export { FeedFormatError, FeedEntryLimitError, BadEntryError, FeedWorkerError } from './feeds/feed-error.ts';
export { SourceError } from './feeds/sources/source-error.ts';
export { ListError } from './lists/list-error.ts';
export { SnapshotStoreError } from './lists/snapshot-store-error.ts';
export { RedisConnectionError } from './redis/redis-connection.ts';
export { GatewayKeysUnavailableError } from './ohttp/key-ring.ts';
export { WireError, type CanonicalStatus, OhttpError, BinaryHttpError } from '../wire/wire-error.ts';
export { UnknownListError } from '../lists/unknown-list-error.ts';
export { LoadControlError } from './guard/refusal.ts';
export { RiceEncodeError } from '../codec/rice-error.ts';
