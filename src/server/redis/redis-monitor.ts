// What an instance's Redis connections go through, for its log and its /metrics: one watch per part of
// the service (lists, load control, search cache, upstream budget, gateway keys), each with its own connection.
//
//   sbkit_redis_available{part}              1 while the part's connection answers, 0 while it does not
//   sbkit_redis_reconnects_total{part}       times Redis answered again: after failed attempts at start,
//                                            or after it went away
//   sbkit_redis_history_restored_total{list} times this instance wrote a list's history of versions
//                                            back into a Redis that had lost it
//
// Every part starts without Redis when it does not answer, and tries again on one schedule
// (DEFAULT_RETRY_SCHEDULE); the first part to reach Redis has the others try at once, so that they join
// together rather than each at its next attempt, up to a minute apart.

import { Counter, Gauge, Registry } from 'prom-client';
import type { Backoff } from '../../time/backoff.ts';
import { DEFAULT_RETRY_SCHEDULE, type RedisConnection, type RedisWatch } from './redis-connection.ts';
import type { Logger } from '../logger.ts';

/** The parts of a service that connect to Redis, as the metrics label them. */
export type RedisPart = 'lists' | 'load-control' | 'search-cache' | 'upstream-budget' | 'ohttp-keys';

/** The Redis connections of one service: their log lines and their metrics. */
export class RedisMonitor {
  /** The metrics, served at `/metrics` beside load control's. */
  readonly metrics = new Registry();
  private readonly connections = new Map<RedisConnection, RedisPart>();
  private readonly reconnects: Counter<'part'>;
  private readonly restoredHistories: Counter<'list'>;

  constructor(
    private readonly log: Logger,
    private readonly retry: Backoff = DEFAULT_RETRY_SCHEDULE,
  ) {
    const connections = this.connections;
    new Gauge({
      name: 'sbkit_redis_available',
      help: "1 while a part of the service reaches Redis, 0 while it serves from this instance's memory",
      labelNames: ['part'],
      registers: [this.metrics],
      // Read at scrape time from the connections themselves.
      collect(this: Gauge<'part'>) {
        for (const [connection, part] of connections) this.set({ part }, connection.ready ? 1 : 0);
      },
    });
    this.reconnects = new Counter({
      name: 'sbkit_redis_reconnects_total',
      help: 'Times Redis answered a part of the service again, after failed attempts at start or after it went away',
      labelNames: ['part'],
      registers: [this.metrics],
    });
    this.restoredHistories = new Counter({
      name: 'sbkit_redis_history_restored_total',
      help: "Times this instance wrote a list's history of versions back into a Redis that had lost it",
      labelNames: ['list'],
      registers: [this.metrics],
    });
  }

  /** The watch of one part: it starts without Redis when Redis does not answer, and reports here. */
  watch(part: RedisPart): RedisWatch {
    return {
      retry: this.retry,
      opened: (connection, failure) => {
        this.connections.set(connection, part);
        this.reconnects.inc({ part }, 0);
        if (failure !== undefined) {
          this.log.warn(
            `${part}: Redis at ${connection.label} does not answer (${failure.message}); starting without it, trying again ` +
              `after ${this.retry.firstMs / 1000} s, then less often, up to every ${this.retry.maxMs / 1000} s`,
          );
        }
      },
      reconnected: (connection) => {
        this.reconnects.inc({ part });
        // Redis is back for one part: it is back for all of them.
        for (const other of this.connections.keys()) if (other !== connection) other.retryNow();
      },
      restored: (list, versions) => {
        this.restoredHistories.inc({ list });
        this.log.warn(`list ${list}: Redis had lost its history of versions; wrote back ${versions} versions held here`);
      },
    };
  }
}
