// What the status page and `sbkit status` show: the lists with their versions, sizes and age, the state
// of each feed source, requests over the last hour, what load control did, and how many Web Risk
// submissions came (only the count: the page is public, the submissions are for the operator).

import { VERSION } from '../../version.ts';
import type { ListCatalog } from '../catalog.ts';
import type { FeedSourceStatus } from '../feeds/sources/source-status.ts';
import type { LoadControlSummary } from '../guard/load-control.ts';
import { hashCount } from '../../store/hash-list.ts';
import type { MinuteCounts, RequestHistory } from './request-history.ts';

export interface ServerStatus {
  version: string;
  /** What the server serves: its configuration file, a mirror of an upstream, or the demo lists. */
  serving: string;
  startedAt: string;
  uptimeSeconds: number;
  lists: {
    name: string;
    description: string;
    /** The current version, as hex (versions are opaque; this is for people comparing instances). */
    version: string;
    entries: number;
    /** When the current version was published (for a mirror: when the upstream sent it). */
    publishedAt: string;
    /** How long ago that was. */
    ageSeconds: number;
  }[];
  /** Each source of each list read from feeds (none for the demo lists and a mirror), in list order. */
  feeds: FeedSourceStatus[];
  requests: { answered: number; refused: number; failed: number; perMinute: MinuteCounts[] };
  loadControl: LoadControlSummary | null;
  /** Web Risk submissions since the start, and how many of them are kept for `GET /admin/submissions`. */
  submissions: { received: number; kept: number };
}

export function serverStatus(
  catalog: ListCatalog,
  history: RequestHistory,
  loadControl: LoadControlSummary | null,
  serving: string,
  startedAt: number,
  now: number,
  feeds: FeedSourceStatus[],
  submissions: { received: number; kept: number },
): ServerStatus {
  const perMinute = history.lastHour();
  const total = (key: 'answered' | 'refused' | 'failed') => perMinute.reduce((sum, m) => sum + m[key], 0);
  return {
    version: VERSION,
    serving,
    startedAt: new Date(startedAt).toISOString(),
    uptimeSeconds: Math.floor((now - startedAt) / 1000),
    lists: catalog.all().map((h) => {
      const snapshot = h.current();
      return {
        name: h.definition.name,
        description: h.definition.description,
        version: snapshot.id,
        entries: hashCount(snapshot.served()),
        publishedAt: new Date(snapshot.createdAt).toISOString(),
        ageSeconds: Math.max(0, Math.floor((now - snapshot.createdAt) / 1000)),
      };
    }),
    feeds,
    requests: { answered: total('answered'), refused: total('refused'), failed: total('failed'), perMinute },
    loadControl,
    submissions,
  };
}
