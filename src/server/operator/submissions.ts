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

/** The reports kept by default: the newest, a bounded amount of memory whoever sends them. */
const MAX_KEPT_SUBMISSIONS = 1000;

/** The newest reports, at most `max`; the oldest is forgotten as each newer one comes. */
export class Submissions {
  private readonly kept: KeptSubmission[] = [];
  private received = 0;

  constructor(private readonly max = MAX_KEPT_SUBMISSIONS) {}

  record(submission: KeptSubmission): void {
    this.received++;
    this.kept.push(submission);
    if (this.kept.length > this.max) this.kept.shift();
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
