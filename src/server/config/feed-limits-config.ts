// The bounds of reading feeds in the server configuration (docs/configuration.md): the top-level
// `feedTimeoutSeconds`, `feedMaxMegabytes` and `feedMaxEntries`, and a source's own `timeoutSeconds`,
// `maxMegabytes` and `maxEntries` over them.

import { type JsonObject, optionalNumber } from './config-fields.ts';

/** Bounds on reading one source. */
export interface FeedLimits {
  /** Whole download or read of a source, in ms. */
  timeoutMs: number;
  /** Largest source, in bytes. */
  maxBytes: number;
  /** Most entries of one source, repeats included (DEFAULT_MAX_FEED_ENTRIES when not given). */
  maxEntries?: number;
  /** Abandons a download under way when aborted: the server is stopping. */
  signal?: AbortSignal;
}

/**
 * Entries one source may hold by default: twice the largest feeds people publish (Tranco's million
 * domains, the big hosts-file blocklists), and at most 64 bytes each once read (hash-buckets.ts), so
 * 128 MiB for a source at the bound.
 */
export const DEFAULT_MAX_FEED_ENTRIES = 2_000_000;
/** A source can be raised to this; past it a list no longer fits the memory of a small machine. */
const MAX_FEED_ENTRIES = 50_000_000;
export const DEFAULT_FEED_LIMITS: FeedLimits = { timeoutMs: 60_000, maxBytes: 256 * 1024 * 1024, maxEntries: DEFAULT_MAX_FEED_ENTRIES };
/** An hour for one download: a feed that takes longer is not one to wait for. */
const MAX_FEED_TIMEOUT_SECONDS = 3600;
/** A feed becomes one string, and V8 caps strings just under 512 Mi characters. */
const MAX_FEED_MEGABYTES = 500;

/** Bounds of one source that override the configuration's feedTimeoutSeconds, feedMaxMegabytes and feedMaxEntries. */
export interface SourceLimits {
  /** Largest text read, in bytes. */
  maxBytes?: number;
  /** Most entries, repeats included. */
  maxEntries?: number;
}

const bytesOf = (megabytes: number) => Math.floor(megabytes * 1024 * 1024);

/**
 * The top-level bounds, defaults filled in.
 *
 * @throws ConfigError naming the first bad field.
 */
export function parseFeedLimits(top: JsonObject): FeedLimits {
  const timeoutSeconds = optionalNumber(top, 'feedTimeoutSeconds', '', { min: 1, max: MAX_FEED_TIMEOUT_SECONDS });
  const maxMegabytes = optionalNumber(top, 'feedMaxMegabytes', '', { min: 1, max: MAX_FEED_MEGABYTES });
  return {
    timeoutMs: timeoutSeconds === undefined ? DEFAULT_FEED_LIMITS.timeoutMs : timeoutSeconds * 1000,
    maxBytes: maxMegabytes === undefined ? DEFAULT_FEED_LIMITS.maxBytes : bytesOf(maxMegabytes),
    maxEntries: optionalNumber(top, 'feedMaxEntries', '', { min: 1, max: MAX_FEED_ENTRIES, integer: true }) ?? DEFAULT_MAX_FEED_ENTRIES,
  };
}

/**
 * A `file` or `url` source's own bounds (`field` is where it stands, for errors), and a URL's own
 * timeout in ms.
 *
 * @throws ConfigError naming the first bad field.
 */
export function parseSourceLimits(source: JsonObject, field: string): SourceLimits & { timeoutMs?: number } {
  const maxMegabytes = optionalNumber(source, 'maxMegabytes', field, { min: 0.001, max: MAX_FEED_MEGABYTES });
  const maxEntries = optionalNumber(source, 'maxEntries', field, { min: 1, max: MAX_FEED_ENTRIES, integer: true });
  const timeoutSeconds = optionalNumber(source, 'timeoutSeconds', field, { min: 1, max: MAX_FEED_TIMEOUT_SECONDS });
  return {
    ...(maxMegabytes === undefined ? {} : { maxBytes: bytesOf(maxMegabytes) }),
    ...(maxEntries === undefined ? {} : { maxEntries }),
    ...(timeoutSeconds === undefined ? {} : { timeoutMs: timeoutSeconds * 1000 }),
  };
}
