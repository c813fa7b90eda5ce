import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSource } from '../../../src/server/config/config-sources.ts';
import { assertRefused, BASE } from './config-fixture.ts';

/** Where the source stands in its configuration, as errors name it. */
const AT = 'lists[0].sources[1]';

// The sources of docs/configuration.md's example, one of each kind.
const file = () => ({ file: 'feeds/openphish.txt', format: 'urls' });
const url = () => ({ url: 'https://urlhaus.abuse.ch/downloads/csv_recent/', format: 'csv', refreshMinutes: 30 });
const entries = () => ({ entries: ['evil.example/'] });
const columns = () => ({ file: '/data/top.csv', format: 'domains', csvColumn: 1 });

describe('parseSource', () => {
  it('gives each kind its typed form: files resolved against the base folder, URLs hourly, entries as expressions', () => {
    assert.deepEqual(parseSource(file(), AT, BASE), {
      kind: 'file',
      path: '/etc/sbkit/feeds/openphish.txt',
      format: 'urls',
      csvColumn: undefined,
      refreshMinutes: undefined,
    });
    assert.deepEqual(parseSource(columns(), AT, BASE), {
      kind: 'file',
      path: '/data/top.csv',
      format: 'domains',
      csvColumn: 1,
      refreshMinutes: undefined,
    });
    assert.deepEqual(parseSource({ url: 'http://feeds.example/x.txt', format: 'urls' }, AT, BASE), {
      kind: 'url',
      url: 'http://feeds.example/x.txt',
      format: 'urls',
      csvColumn: undefined,
      refreshMinutes: 60,
    });
    assert.deepEqual(parseSource(entries(), AT, BASE), {
      kind: 'entries',
      entries: ['evil.example/'],
      format: 'expressions',
      csvColumn: undefined,
    });
  });

  it('lets a URL source reach private addresses only when told so', () => {
    const allowed = parseSource({ ...url(), allowPrivateAddresses: true }, AT, BASE);
    assert.equal(allowed.kind === 'url' && allowed.allowPrivateAddresses, true);
    assert.equal('allowPrivateAddresses' in parseSource({ ...url(), allowPrivateAddresses: false }, AT, BASE), false);
  });

  it("reads a source's own limits and name, leaving the others to the configuration's", () => {
    const a = parseSource(
      { url: 'https://feeds.example/a', format: 'urls', name: 'feed-a', timeoutSeconds: 10, maxMegabytes: 0.5 },
      AT,
      BASE,
    );
    const local = parseSource({ file: 'local.txt', format: 'urls', maxMegabytes: 3, maxEntries: 10 }, AT, BASE);
    const b = parseSource({ url: 'https://feeds.example/b', format: 'urls' }, AT, BASE);
    assert.deepEqual([a.name, a.kind === 'url' && a.timeoutMs, a.kind !== 'entries' && a.maxBytes], ['feed-a', 10_000, 512 * 1024]);
    assert.equal(local.kind === 'file' && local.maxBytes, 3 * 1024 * 1024);
    assert.equal(local.kind === 'file' && local.maxEntries, 10);
    assert.deepEqual([b.name, b.kind === 'url' && b.timeoutMs, b.kind === 'url' && b.maxBytes], [undefined, undefined, undefined]);
  });

  // Each: a source with one thing wrong, the field the error names (within the source; '' for the source
  // itself), and what the message says.
  const errors: [string, Record<string, unknown>, string, RegExp][] = [
    ['a misspelt source field', { ...url(), refreshMinute: 5 }, 'refreshMinute', /not a known setting/],
    ['refreshMinutes on inline entries', { ...entries(), refreshMinutes: 5 }, 'refreshMinutes', /not a known setting/],
    ['allowPrivateAddresses on a file', { ...file(), allowPrivateAddresses: true }, 'allowPrivateAddresses', /not a known setting/],
    ['allowPrivateAddresses as a string', { ...url(), allowPrivateAddresses: 'yes' }, 'allowPrivateAddresses', /true or false/],
    ['a source timeout past an hour', { ...url(), timeoutSeconds: 7200 }, 'timeoutSeconds', /from 1 to 3600/],
    ['a timeout on a file', { ...file(), timeoutSeconds: 5 }, 'timeoutSeconds', /not a known setting/],
    ['a huge source limit', { ...url(), maxMegabytes: 501 }, 'maxMegabytes', /to 500/],
    ['a limit on inline entries', { ...entries(), maxMegabytes: 1 }, 'maxMegabytes', /not a known setting/],
    ['a source name with a space', { ...url(), name: 'my feed' }, 'name', /labels metrics/],
    [
      'a source with file and url',
      { ...file(), url: 'https://x.example/' },
      '',
      /exactly one of "file", "url" and "entries", not file and url/,
    ],
    ['a source with neither', { format: 'urls' }, '', /exactly one of/],
    ['a file source without format', { file: 'feeds/openphish.txt' }, 'format', /is required/],
    ['a null format', { ...entries(), format: null }, 'format', /not null/],
    ['an unknown format', { ...file(), format: 'json' }, 'format', /urls, hosts, csv, expressions, domains/],
    ['a column for a format without columns', { ...file(), csvColumn: 1 }, 'csvColumn', /only csv and domains/],
    ['a negative column', { ...columns(), csvColumn: -1 }, 'csvColumn', /whole number from 0/],
    ['a relative URL', { ...url(), url: 'feeds/x.csv' }, 'url', /not an absolute URL/],
    ['an ftp URL', { ...url(), url: 'ftp://feeds.example/x.csv' }, 'url', /http: or https:/],
    ['a refresh under a minute', { ...url(), refreshMinutes: 0.5 }, 'refreshMinutes', /from 1 to 10080/],
    ['a refresh past a week', { ...file(), refreshMinutes: 50_000 }, 'refreshMinutes', /from 1 to 10080/],
    ['an empty file path', { ...file(), file: '' }, 'file', /non-empty string/],
    ['an entry of two lines', { entries: ['a.example/\nb.example/'] }, 'entries[0]', /one line/],
  ];
  for (const [name, source, within, message] of errors) {
    it(`names the field of ${name}`, () => {
      const field = within === '' ? AT : `${AT}.${within}`;
      assertRefused(() => parseSource(source, AT, BASE), field, message);
    });
  }
});
