// The sources' metrics for /metrics, read at scrape time from their states (source-states.ts). Every
// series is labelled with the list, the source's 0-based index in it, and its shown name (the operator's
// `name`, else a URL's host or a file's name): never the URL, whose path, query or user information can
// hold a key.
//
//   sbkit_feed_source_up{list,source,name}                         1 when the last check left a good copy, else 0
//   sbkit_feed_source_last_success_timestamp_seconds{…}            end of the last check that left a good copy
//   sbkit_feed_source_last_error_timestamp_seconds{…,kind}         the latest failure, with its kind
//   sbkit_feed_source_consecutive_failures{…}                      failures since the last success
//   sbkit_feed_source_failures_total{…,kind}                       failures by kind
//   sbkit_feed_source_copy_timestamp_seconds{…}                    when the copy served was first read
//   sbkit_feed_source_entries{…}                                   distinct entries of the copy served, edits included
//   sbkit_feed_source_bytes{…}                                     size of the copy served, decoded
//   sbkit_feed_source_requests_total{…}                            GETs sent (URL feeds)
//   sbkit_feed_source_not_modified_total{…}                        304 answers (URL feeds)
//   sbkit_feed_source_received_bytes_total{…}                      bytes received as sent, compressed

import { Counter, Gauge, Registry } from 'prom-client';
import type { SourceState, SourceStates } from './sources/source-states.ts';
import { entryCount } from './sources/source-status.ts';

type Labels = 'list' | 'source' | 'name';
type Metric = Gauge<Labels> | Counter<Labels>;

const labelsOf = (state: SourceState) => ({ list: state.list, source: String(state.index), name: state.name });
const seconds = (ms: number) => ms / 1000;

/** A registry whose metrics describe `states` whenever they are scraped. */
export function feedMetrics(states: SourceStates): Registry {
  const registry = new Registry();
  const labelNames = ['list', 'source', 'name'] as const;
  /** A metric with one value per source, undefined leaving the source out. */
  const perSource = (kind: 'gauge' | 'counter', name: string, help: string, value: (state: SourceState) => number | undefined) => {
    const collect = function (this: Metric) {
      // Series of sources a reload removed disappear.
      this.reset();
      for (const state of states.all()) {
        const v = value(state);
        if (v === undefined) continue;
        if (this instanceof Gauge) this.set(labelsOf(state), v);
        else this.inc(labelsOf(state), v);
      }
    };
    const options = { name, help, labelNames, registers: [registry], collect };
    return kind === 'gauge' ? new Gauge(options) : new Counter(options);
  };
  perSource('gauge', 'sbkit_feed_source_up', 'Whether the last check of a feed source left a good copy (1) or failed (0)', (s) =>
    s.lastCheckAt === undefined ? undefined : s.failure === undefined ? 1 : 0,
  );
  perSource(
    'gauge',
    'sbkit_feed_source_last_success_timestamp_seconds',
    'When the last check of a feed source that left a good copy ended',
    (s) => (s.lastSuccessAt === undefined ? undefined : seconds(s.lastSuccessAt)),
  );
  new Gauge({
    name: 'sbkit_feed_source_last_error_timestamp_seconds',
    help: 'When the latest failure of a feed source happened, labelled with its kind',
    labelNames: [...labelNames, 'kind'],
    registers: [registry],
    collect(this: Gauge) {
      this.reset();
      for (const state of states.all())
        if (state.lastError !== undefined) this.set({ ...labelsOf(state), kind: state.lastError.failure }, seconds(state.lastError.at));
    },
  });
  perSource('gauge', 'sbkit_feed_source_consecutive_failures', 'Failures of a feed source since its last success', (s) =>
    s.lastCheckAt === undefined ? undefined : (s.failure?.count ?? 0),
  );
  new Counter({
    name: 'sbkit_feed_source_failures_total',
    help: 'Failures of a feed source, by kind (docs/errors.md SourceError)',
    labelNames: [...labelNames, 'kind'],
    registers: [registry],
    collect(this: Counter) {
      this.reset();
      for (const state of states.all()) for (const [kind, count] of state.failures) this.inc({ ...labelsOf(state), kind }, count);
    },
  });
  perSource('gauge', 'sbkit_feed_source_copy_timestamp_seconds', 'When the copy of a feed source that is served was first read', (s) =>
    s.copy === undefined ? undefined : seconds(s.copy.since),
  );
  perSource(
    'gauge',
    'sbkit_feed_source_entries',
    "Distinct entries of the copy of a feed source that is served, an inline source's with the edits made through /admin/lists",
    entryCount,
  );
  perSource(
    'gauge',
    'sbkit_feed_source_bytes',
    'Size of the copy of a feed source that is served, decoded, in bytes',
    (s) => s.copy?.bytes,
  );
  const urlOnly = (value: (state: SourceState) => number) => (state: SourceState) =>
    state.source.kind === 'url' ? value(state) : undefined;
  perSource(
    'counter',
    'sbkit_feed_source_requests_total',
    'GETs sent for a URL feed source',
    urlOnly((s) => s.requests),
  );
  perSource(
    'counter',
    'sbkit_feed_source_not_modified_total',
    'Answers 304 Not Modified to conditional GETs of a URL feed source',
    urlOnly((s) => s.notModified),
  );
  perSource(
    'counter',
    'sbkit_feed_source_received_bytes_total',
    'Bytes of URL feed answers as received (compressed), good or not',
    urlOnly((s) => s.receivedBytes),
  );
  return registry;
}
