// What Web Risk clients report (`POST /v1/projects/{project}/submissions`): kept in memory for the
// operator alone, to review at `GET /admin/submissions`. A report is someone's claim, not a verdict: it
// is never published in any list, and the status page, which is public, shows only how many there are.

import { addressKey, neighbourhoodKey } from '../guard/client-address.ts';

/** One report, as the operator reviews it. */
export interface KeptSubmission {
  /** When it came, ISO 8601. */
  at: string;
  /** The project of the path, `projects/{project}`. */
  project: string;
  uri: string;
  /**
   * Who sent it: the client's address, as load control reads it (behind trusted proxies, the forwarded
   * one), kept whole for the operator; {@link Submissions} counts an IPv6 client's reports by its /64.
   */
  client: string;
}

/** The reports kept by default: the newest, a bounded amount of memory whoever sends them (URIs are at most 4 KiB). */
const MAX_KEPT_SUBMISSIONS = 1000;
/**
 * The reports of one client kept at most: one client's flood cannot push out everyone else's. A client
 * is named as load control names it (client-address.ts addressKey): an IPv6 client by its /64, whose
 * addresses it can use by the million.
 */
const MAX_KEPT_PER_CLIENT = 20;
/**
 * The reports of one neighbourhood kept at most (client-address.ts neighbourhoodKey: an IPv6 client's
 * /56, the 256 /64s one subscriber may hold; an IPv4 address is its own): a flood from one subscriber's
 * /64s keeps a twentieth of the reports, and pushes out none of anyone else's.
 */
const MAX_KEPT_PER_NEIGHBOURHOOD = 50;

/** How many reports {@link Submissions} keeps: in all, of one client, of one neighbourhood. */
export interface SubmissionBounds {
  max: number;
  perClient: number;
  perNeighbourhood: number;
}

/** A report kept, with the client and neighbourhood it counts against. */
interface Kept {
  submission: KeptSubmission;
  client: string;
  neighbourhood: string;
}

/** How many reports each of some keys holds. */
class Tally {
  private readonly counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string, step: 1 | -1): void {
    const count = this.of(key) + step;
    if (count === 0) this.counts.delete(key);
    else this.counts.set(key, count);
  }
}

/**
 * The newest reports, at most `max`, at most `perClient` of one client and `perNeighbourhood` of one
 * neighbourhood: a newer one takes the place of the sender's own oldest when its client has that many,
 * else of its neighbourhood's oldest when that has that many, else of the oldest of all.
 */
export class Submissions {
  private readonly kept: Kept[] = [];
  private readonly perClientKept = new Tally();
  private readonly perNeighbourhoodKept = new Tally();
  private readonly bounds: SubmissionBounds;
  private received = 0;

  constructor(bounds: Partial<SubmissionBounds> = {}) {
    this.bounds = {
      max: bounds.max ?? MAX_KEPT_SUBMISSIONS,
      perClient: bounds.perClient ?? MAX_KEPT_PER_CLIENT,
      perNeighbourhood: bounds.perNeighbourhood ?? MAX_KEPT_PER_NEIGHBOURHOOD,
    };
  }

  record(submission: KeptSubmission): void {
    this.received++;
    const entry = { submission, client: addressKey(submission.client), neighbourhood: neighbourhoodKey(submission.client) };
    const { max, perClient, perNeighbourhood } = this.bounds;
    if (this.perClientKept.of(entry.client) >= perClient) this.forget(this.kept.findIndex((kept) => kept.client === entry.client));
    else if (this.perNeighbourhoodKept.of(entry.neighbourhood) >= perNeighbourhood)
      this.forget(this.kept.findIndex((kept) => kept.neighbourhood === entry.neighbourhood));
    else if (this.kept.length >= max) this.forget(0);
    this.kept.push(entry);
    this.perClientKept.add(entry.client, 1);
    this.perNeighbourhoodKept.add(entry.neighbourhood, 1);
  }

  private forget(index: number): void {
    const [gone] = this.kept.splice(index, 1);
    if (gone === undefined) return;
    this.perClientKept.add(gone.client, -1);
    this.perNeighbourhoodKept.add(gone.neighbourhood, -1);
  }

  /** The reports kept, newest first. */
  newestFirst(): KeptSubmission[] {
    return this.kept.map((kept) => kept.submission).reverse();
  }

  /** How many came since the start, and how many of them are kept: for the status page, which shows nothing else of them. */
  counts(): { received: number; kept: number } {
    return { received: this.received, kept: this.kept.length };
  }
}
