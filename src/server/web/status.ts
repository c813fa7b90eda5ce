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
    /** Why requests for the list get 503 now (a proxy's list without a current copy of the upstream's); absent while it is served. */
    unavailable?: string;
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
  unavailable: (name: string) => string | undefined,
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
      // A mirror's copy is as old as the upstream's latest sending of it, not as its content's first.
      const publishedAt = h.receivedAt ?? snapshot.createdAt;
      const why = unavailable(h.definition.name);
      return {
        name: h.definition.name,
        description: h.definition.description,
        version: snapshot.id,
        entries: hashCount(snapshot.served()),
        publishedAt: new Date(publishedAt).toISOString(),
        ageSeconds: Math.max(0, Math.floor((now - publishedAt) / 1000)),
        ...(why === undefined ? {} : { unavailable: why }),
      };
    }),
    feeds,
    requests: { answered: total('answered'), refused: total('refused'), failed: total('failed'), perMinute },
    loadControl,
    submissions,
  };
}
