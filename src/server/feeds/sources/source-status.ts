// Each source's state in words, for the status page, /status.json and `sbkit status`. These are public:
// a source is named as sourceShownName names it (no path, no query, no credentials), and a failure is
// told in words made here from its kind and the source's own settings, never from the feed server's text
// or the error's message (which names the URL); the log has those.

import type { SourceError, SourceFailure } from './source-error.ts';
import type { SourceState } from './source-states.ts';

/** One source of one list, as /status.json shows it. Times are ISO 8601, null when there is none yet. */
export interface FeedSourceStatus {
  list: string;
  /** 0-based, in the list's `sources`. */
  source: number;
  /** The operator's `name`, else a URL's host, a file's name, or "inline entries". */
  name: string;
  kind: 'file' | 'url' | 'entries';
  /**
   * `fresh`: the last check left a good copy. `failing`: it did not, and the last good copy is served.
   * `unavailable`: it did not, and there is no copy. `pending`: not read yet.
   */
  state: 'fresh' | 'failing' | 'unavailable' | 'pending';
  /** Distinct entries of the copy served (of an `entries` source, with the operator's edits), null without one. */
  entries: number | null;
  /** Size of the copy served, decoded, in bytes. */
  bytes: number | null;
  /** When the copy served was first read. */
  copySince: string | null;
  lastCheckAt: string | null;
  lastSuccessAt: string | null;
  /** When a timer reads it next (a URL feed's refresh or back-off, a file's refresh). */
  nextCheckAt: string | null;
  /** Failures in a row, and what the latest was. */
  failure: { kind: SourceFailure; since: string; count: number; reason: string } | null;
  /** GETs sent, and how many were answered 304 (URL feeds). */
  requests: number;
  notModified: number;
  /** All of the above in a sentence. */
  summary: string;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** A moment as the status page writes it: `2026-11-25 10:58:00 UTC`. */
function moment(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** A span of time, rounded down to its largest unit. */
function span(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024).toLocaleString('en')} KiB`;
  return `${(bytes / (1024 * 1024)).toLocaleString('en', { maximumFractionDigits: 1 })} MiB`;
}

/** What went wrong, in words that hold nothing the feed's server or the URL said. */
function failureReason(error: SourceError, state: SourceState): string {
  const { format } = state.source;
  switch (error.failure) {
    case 'timeout':
      return `timeout after ${state.limits.timeoutMs / 1000} s`;
    case 'http-status':
      return error.httpStatus === undefined
        ? 'an HTTP error'
        : `HTTP ${error.httpStatus}${error.retryAfterSeconds === undefined ? '' : `, asked to wait ${span(error.retryAfterSeconds * 1000)}`}`;
    case 'too-large':
      return `larger than its limit of ${size(state.limits.maxBytes)}`;
    case 'network':
      return 'network error (the log says more)';
    case 'redirect':
      return 'a redirect refused (the log says more)';
    case 'forbidden-address':
      return 'at a non-public address, refused';
    case 'not-found':
      return 'file not found';
    case 'unreadable':
      return 'file unreadable';
    case 'format':
      return `not readable as ${format}`;
    case 'not-a-feed':
      return `does not look like a ${format} feed`;
    case 'too-many-entries':
      return `more entries than its limit of ${(state.limits.maxEntries ?? 0).toLocaleString('en')}`;
    case 'worker':
      return 'the feed worker reading it failed (the log says more)';
  }
}

function stateOf(state: SourceState): FeedSourceStatus['state'] {
  if (state.failure !== undefined) return state.copy === undefined ? 'unavailable' : 'failing';
  return state.copy === undefined ? 'pending' : 'fresh';
}

function summaryOf(state: SourceState, now: number, reason: string | undefined): string {
  const { copy, failure } = state;
  const entries = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'entry' : 'entries'}`;
  const next = state.nextCheckAt === undefined ? '' : `; next try in ${span(state.nextCheckAt - now)}`;
  if (failure !== undefined) {
    const tries = failure.count === 1 ? '1 try' : `${failure.count} tries`;
    const serving =
      copy === undefined ? 'nothing to serve from it yet' : `serving the copy from ${moment(copy.since)}, ${entries(copy.expressionCount)}`;
    return `failing since ${moment(failure.since)} (${tries}): ${reason}; ${serving}${next}`;
  }
  if (copy === undefined) return 'not read yet';
  if (state.source.kind === 'entries') {
    const edited = state.editedExpressions;
    return edited === undefined
      ? `inline, ${entries(copy.expressionCount)}`
      : `inline, ${entries(edited)} with the edits made through /admin/lists (${copy.expressionCount.toLocaleString('en')} configured)`;
  }
  const checked = state.lastSuccessAt === undefined ? '' : `, checked ${span(now - state.lastSuccessAt)} ago`;
  const unchanged = state.lastSuccessAt !== undefined && copy.since < state.lastSuccessAt ? `, unchanged since ${moment(copy.since)}` : '';
  return `fresh, ${entries(copy.expressionCount)}${checked}${unchanged}`;
}

/** Distinct entries a source counts with: its copy's, with the operator's edits for an `entries` source; none without a copy. */
export function entryCount(state: SourceState): number | undefined {
  return state.copy === undefined ? undefined : (state.editedExpressions ?? state.copy.expressionCount);
}

/** The status of one source at `now`. */
export function sourceStatus(state: SourceState, now: number): FeedSourceStatus {
  const reason = state.failure === undefined ? undefined : failureReason(state.failure.error, state);
  return {
    list: state.list,
    source: state.index,
    name: state.name,
    kind: state.source.kind,
    state: stateOf(state),
    entries: entryCount(state) ?? null,
    bytes: state.copy?.bytes ?? null,
    copySince: iso(state.copy?.since),
    lastCheckAt: iso(state.lastCheckAt),
    lastSuccessAt: iso(state.lastSuccessAt),
    nextCheckAt: iso(state.nextCheckAt),
    failure:
      state.failure === undefined
        ? null
        : { kind: state.failure.error.failure, since: iso(state.failure.since)!, count: state.failure.count, reason: reason! },
    requests: state.requests,
    notModified: state.notModified,
    summary: summaryOf(state, now, reason),
  };
}
