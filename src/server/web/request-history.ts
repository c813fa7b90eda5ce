// Requests per minute over the last hour, for the status page's chart: answered, refused by load
// control (503) and failed (other errors). Sixty counters, whatever the traffic.

import { type Clock, systemClock } from '../../time/clock.ts';

export interface MinuteCounts {
  /** The minute's start, ms since the epoch. */
  minute: number;
  answered: number;
  refused: number;
  failed: number;
}

const MINUTE_MS = 60_000;
const MINUTES = 60;

export class RequestHistory {
  private readonly minutes: MinuteCounts[] = [];

  constructor(private readonly clock: Clock = systemClock) {}

  /** Counts one response by its HTTP status. */
  record(status: number): void {
    const minute = Math.floor(this.clock.now() / MINUTE_MS) * MINUTE_MS;
    let current = this.minutes.at(-1);
    if (current === undefined || current.minute !== minute) {
      current = { minute, answered: 0, refused: 0, failed: 0 };
      this.minutes.push(current);
      if (this.minutes.length > MINUTES) this.minutes.shift();
    }
    if (status === 503) current.refused++;
    else if (status >= 500) current.failed++;
    else current.answered++;
  }

  /** The last hour, one entry per minute, oldest first, minutes without requests included as zeros. */
  lastHour(): MinuteCounts[] {
    const end = Math.floor(this.clock.now() / MINUTE_MS) * MINUTE_MS;
    const byMinute = new Map(this.minutes.map((m) => [m.minute, m]));
    return Array.from({ length: MINUTES }, (_, i) => {
      const minute = end - (MINUTES - 1 - i) * MINUTE_MS;
      return { ...(byMinute.get(minute) ?? { minute, answered: 0, refused: 0, failed: 0 }) };
    });
  }
}
