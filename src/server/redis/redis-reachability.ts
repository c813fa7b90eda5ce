// Whether Redis answered a part of the service that goes on without it (a cache, shared limits, shared
// lists): the part tells its log once when Redis fails and once when it answers again, not at every
// command meanwhile.

import type { Logger } from '../logger.ts';

/** Redis as one part of the service last found it, told to the log at each change. */
export class RedisReachability {
  constructor(
    private readonly log: Logger,
    private reachable = true,
  ) {}

  /** Redis answered: logs `message` when it had failed before. */
  answered(message: string): void {
    if (this.reachable) return;
    this.reachable = true;
    this.log.info(message);
  }

  /** Redis failed: logs `message` when it had answered before. */
  failed(message: string): void {
    if (!this.reachable) return;
    this.reachable = false;
    this.log.warn(message);
  }
}
