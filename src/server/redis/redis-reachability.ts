// Whether Redis answered a part of the service that goes on without it (a cache, shared limits, shared
// lists): the part tells its log once when Redis fails and once when it answers again, not at every
// command meanwhile. A Redis that is partly away answers and fails by turns: a Cluster with one primary
// dead fails the commands of its slots and answers the others' until a replica takes over, and each
// turn would be a line (tens of thousands in the chaos run's cluster-failover). So a failure soon after
// Redis was said to answer again is one more turn of the same outage: counted, and told with the next
// failure that is reported.

import { type Clock, systemClock } from '../../time/clock.ts';
import type { Logger } from '../logger.ts';

/**
 * How long after "answers again" a failure is taken for the same outage going on (a node still away, a
 * failover under way) rather than a new one. Longer than a Sentinel or Cluster failover takes.
 */
export const SAME_OUTAGE_MS = 10_000;

/** Redis as one part of the service last found it, told to the log at each change of outage. */
export class RedisReachability {
  /** When "answers again" was last told; failures until SAME_OUTAGE_MS after it are not news. */
  private answeredAt = -Infinity;
  /** Failures not told since the last report of one. */
  private untold = 0;

  constructor(
    private readonly log: Logger,
    private reachable = true,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Redis answered: logs `message` when it had failed before. */
  answered(message: string): void {
    if (this.reachable) return;
    this.reachable = true;
    this.answeredAt = this.clock.now();
    this.log.info(message);
  }

  /** Redis failed: logs `message` when it had answered before, unless it answered again only a moment ago. */
  failed(message: string): void {
    if (!this.reachable) return;
    if (this.clock.now() - this.answeredAt < SAME_OUTAGE_MS) {
      this.untold++;
      return;
    }
    this.reachable = false;
    const untold = this.untold;
    this.untold = 0;
    this.log.warn(untold === 0 ? message : `${message} (it also failed ${untold} times since the last report, answering between)`);
  }
}
