// What Web Risk clients report (`POST /v1/projects/{project}/submissions`): kept in memory for the
// operator alone, to review at `GET /admin/submissions`. A report is someone's claim, not a verdict: it
// is never published in any list, and the status page, which is public, shows only how many there are.

/** One report, as the operator reviews it. */
export interface KeptSubmission {
  /** When it came, ISO 8601. */
  at: string;
  /** The project of the path, `projects/{project}`. */
  project: string;
  uri: string;
  /** Who sent it: the client's address, as load control names it (behind trusted proxies, the forwarded one). */
  client: string;
}

/** The reports kept by default: the newest, a bounded amount of memory whoever sends them (URIs are at most 4 KiB). */
const MAX_KEPT_SUBMISSIONS = 1000;
/** The reports of one client kept at most: one client's flood cannot push out everyone else's. */
const MAX_KEPT_PER_CLIENT = 20;

/**
 * The newest reports, at most `max`, and at most `perClient` of one client: a newer one takes the place
 * of the sender's own oldest when it has that many, else of the oldest of all.
 */
export class Submissions {
  private readonly kept: KeptSubmission[] = [];
  private readonly perClientKept = new Map<string, number>();
  private received = 0;

  constructor(
    private readonly max = MAX_KEPT_SUBMISSIONS,
    private readonly perClient = MAX_KEPT_PER_CLIENT,
  ) {}

  record(submission: KeptSubmission): void {
    this.received++;
    const own = this.perClientKept.get(submission.client) ?? 0;
    if (own >= this.perClient) this.forget(this.kept.findIndex((kept) => kept.client === submission.client));
    else if (this.kept.length >= this.max) this.forget(0);
    this.kept.push(submission);
    this.perClientKept.set(submission.client, (this.perClientKept.get(submission.client) ?? 0) + 1);
  }

  private forget(index: number): void {
    const [gone] = this.kept.splice(index, 1);
    if (gone === undefined) return;
    const left = (this.perClientKept.get(gone.client) ?? 1) - 1;
    if (left === 0) this.perClientKept.delete(gone.client);
    else this.perClientKept.set(gone.client, left);
  }

  /** The reports kept, newest first. */
  newestFirst(): KeptSubmission[] {
    return this.kept.toReversed();
  }

  /** How many came since the start, and how many of them are kept: for the status page, which shows nothing else of them. */
  counts(): { received: number; kept: number } {
    return { received: this.received, kept: this.kept.length };
  }
}
