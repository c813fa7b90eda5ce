// What a load or a publication of one list tells the operator (the log, /admin/reload's answer): the
// report, and the words that say why a list was not served as read. Pure: feed-list.ts fills them in.

import type { SnapshotStoreError } from '../lists/snapshot-store-error.ts';
import type { LoadedList } from './sources/feed-source.ts';

/** A bad line of a feed as the operator is told of it: where it is and why it is no entry. */
export interface ReportedBadLine {
  /** The file path or URL (without credentials), or a description of inline entries. */
  source: string;
  /** 1-based line number in the feed. */
  line: number;
  /** Why the line is no entry. */
  reason: string;
}

/** Enough of each source's bad lines to see what is wrong with it, few enough for a log line. */
export const REPORTED_BAD_LINES_PER_SOURCE = 10;

/** What one (re)load of a list did, for logs and the operator's reload endpoint. */
export interface ListLoadReport {
  /** The list's name. */
  list: string;
  /** Distinct expressions read from its sources. */
  expressions: number;
  /** Bad lines over the sources that loaded. */
  badLines: number;
  /** The first bad lines of each source that loaded (up to REPORTED_BAD_LINES_PER_SOURCE), in source order. */
  firstBadLines: ReportedBadLine[];
  /** Sources that failed, and a snapshot store that could not take the list, as messages. */
  errors: string[];
  /**
   * False when this load published nothing: its sources held what they held at the last publication (304s,
   * texts unchanged, feeds not due yet), or a failed source without a copy, or a snapshot store that could
   * not take the list, kept the previous snapshot in service.
   */
  published: boolean;
  /**
   * Whether the version this instance last published holds exactly what this load read (its sources'
   * copies and the entry edits): true also when nothing new needed publishing (a content published
   * already, by this load or an earlier one), false when the list stays as it was without this load's
   * content (see `notServed`).
   */
  served: boolean;
  /** When not `served`: why, in words for the operator, and when it will be. */
  notServed?: string;
}

/** The report of what `loaded` holds of the list `name`, before anything is published. */
export function loadedReport(name: string, loaded: LoadedList): ListLoadReport {
  return {
    list: name,
    expressions: loaded.expressions,
    badLines: loaded.badLines,
    firstBadLines: loaded.sources.flatMap(({ source, badLines }) =>
      badLines.slice(0, REPORTED_BAD_LINES_PER_SOURCE).map(({ line, reason }) => ({ source, line, reason })),
    ),
    errors: [
      ...loaded.errors.map((e) => e.message),
      ...loaded.stale.map((s) => `${s.error.message}; its copy from ${new Date(s.copySince).toISOString()} still counts`),
    ],
    published: false,
    served: false,
  };
}

/** The report of a load or publication that failed in a way no source explains; the list keeps its snapshot. */
export function failedReport(name: string, err: unknown, errors: string[] = []): ListLoadReport {
  const why = `reload failed unexpectedly: ${messageOf(err)}`;
  return {
    list: name,
    expressions: 0,
    badLines: 0,
    firstBadLines: [],
    errors: [...errors, why],
    published: false,
    served: false,
    notServed: why,
  };
}

/** The report of a publication the server's stop abandoned: nothing published. */
export function abandonedReport(name: string): ListLoadReport {
  return {
    list: name,
    expressions: 0,
    badLines: 0,
    firstBadLines: [],
    errors: ['abandoned: stopping'],
    published: false,
    served: false,
    notServed: 'the server is stopping',
  };
}

/** `report` once a publication tried again went through: published, served, nothing left unsaid. */
export function republishedReport(report: ListLoadReport): ListLoadReport {
  const published: ListLoadReport = { ...report, published: true, served: true };
  delete published.notServed;
  return published;
}

/** `report` once a publication tried again failed in a way no store refusal explains. */
export function republishFailedReport(report: ListLoadReport, err: unknown): ListLoadReport {
  return { ...report, errors: [...report.errors, `publication failed unexpectedly: ${messageOf(err)}`] };
}

/**
 * Why a load with a source that has no copy was not published, in words: which sources, and when they
 * are tried next (`nextCheckAt`, undefined: at the next reload).
 */
export function heldBackReason(loaded: LoadedList, nextCheckAt: number | undefined): string {
  const when = nextCheckAt === undefined ? 'at the next reload' : `next tried at ${new Date(nextCheckAt).toISOString()}`;
  const why = [
    ...loaded.errors.map((error) => error.message),
    ...loaded.unread.map((source) => `${source} is being read for the first time`),
  ];
  const one = why.length === 1;
  return (
    `the list stays as it was: ${why.join('; ')}, and ` +
    `${one ? 'that source has' : 'those sources have'} no copy in this process yet; ` +
    `publishing without ${one ? 'it' : 'them'} would take ${one ? 'its' : 'their'} entries out of every client. ` +
    `What this load read is served once ${one ? 'that source is' : 'those sources are'} read (${when}).`
  );
}

/** Why a load the snapshot store refused is not served yet, in words. */
export function refusedReason(refusal: SnapshotStoreError): string {
  return (
    `the snapshot store could not take the list (${refusal.message}); it is tried again in a moment, ` +
    'at growing intervals, and the previous version stays served meanwhile'
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
