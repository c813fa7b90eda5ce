import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { FeedLimits, ListConfig, SourceConfig } from '../../../../src/server/config/config.ts';
import { loadList } from '../../../../src/server/feeds/sources/feed-source.ts';
import { type SourceCopy, sourceRefreshMs, SourceStates } from '../../../../src/server/feeds/sources/source-states.ts';
import { SourceError, type SourceFailure } from '../../../../src/server/feeds/sources/source-error.ts';
import { sourceLimits } from '../../../../src/server/feeds/sources/source-text.ts';

const fixtures = new URL('../fixtures/', import.meta.url);
const fixturePath = (name: string) => fileURLToPath(new URL(name, fixtures));
const LIMITS: FeedLimits = { timeoutMs: 5_000, maxBytes: 1024 * 1024 };

function file(name: string, format: SourceConfig['format'], refreshMinutes?: number): SourceConfig {
  return { kind: 'file', path: fixturePath(name), format, csvColumn: undefined, refreshMinutes };
}

function fromUrl(url: string, format: SourceConfig['format'], refreshMinutes = 60): SourceConfig {
  return { kind: 'url', url, format, csvColumn: undefined, refreshMinutes };
}

function list(sources: SourceConfig[]): ListConfig {
  return { name: 'test-4b', threatTypes: ['MALWARE'], likelySafeTypes: [], hashLength: 4, description: '', sources };
}

/** One read of `source` as a list's first load reads it (SourceStates): its copy, or the SourceError it failed with. */
async function readSource(source: SourceConfig, limits: FeedLimits = LIMITS): Promise<SourceCopy> {
  const { copy, error } = await new SourceStates().read('test-4b', 0, source, sourceLimits(source, limits), 'now');
  if (error !== undefined) throw error;
  return copy!;
}

const sha256 = (expression: string) => createHash('sha256').update(expression).digest();
/** The full hashes a copy of exactly `expressions` holds. */
const hashesOf = (expressions: string[]) => Buffer.concat(expressions.map(sha256).sort((a, b) => Buffer.compare(a, b)));
const expressionsOf = (copy: SourceCopy) => Buffer.from(copy.fullHashes);

async function rejectsWith(promise: Promise<unknown>, failure: SourceFailure, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SourceError, String(error));
    assert.equal(error.failure, failure);
    assert.match(error.message, message);
    return true;
  });
}

/** A feed server on 127.0.0.1, port chosen by the system, with one route per behaviour under test. */
let server: Server;
let base: string;
const openResponses = new Set<ServerResponse>();

before(async () => {
  const hosts = readFileSync(fixturePath('hosts.txt'));
  server = createServer((request, response) => {
    switch (request.url) {
      case '/hosts.txt':
        response.writeHead(200, { 'content-type': 'text/plain' }).end(hosts);
        return;
      case '/hosts.txt.gz':
        response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(hosts));
        return;
      case '/moved':
        response.writeHead(302, { location: '/hosts.txt' }).end();
        return;
      case '/private':
        if (request.headers.authorization === `Basic ${Buffer.from('user:s3cret!').toString('base64')}`) {
          response.writeHead(200, { 'content-type': 'text/plain' }).end(hosts);
        } else {
          response.writeHead(401, { 'www-authenticate': 'Basic realm="feeds"' }).end();
        }
        return;
      case '/maintenance':
        // An error page served as a success, as CDNs and captive portals do.
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!DOCTYPE html>\n<html>\n<body>\n<h1>Down for maintenance</h1>\n<p>Please try again later.</p>\n</body>\n</html>\n');
        return;
      case '/missing':
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
        return;
      case '/big':
        response.writeHead(200, { 'content-length': String(2 * LIMITS.maxBytes) }).end(Buffer.alloc(2 * LIMITS.maxBytes, 0x61));
        return;
      case '/endless': {
        // Chunked, no length announced: only counting the bytes can stop it.
        response.writeHead(200, { 'content-type': 'text/plain' });
        const line = Buffer.from('http://endless.example/\n'.repeat(4096));
        const pump = () => {
          while (!response.destroyed && response.write(line));
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
        return;
      }
      case '/silent':
        // Headers and nothing else, never finished: the time limit must end it.
        openResponses.add(response);
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('http://slow.example/\n');
        return;
      default:
        response.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const response of openResponses) response.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const HOSTS_EXPRESSIONS = [
  'ads.tracker.example/',
  'malware.example/',
  'www.malware.example/',
  'cdn.malware.example/',
  'phish.example.net/',
];

describe('a source read: files', () => {
  it('reads and parses a local file', async () => {
    const feed = await readSource(file('hosts.txt', 'hosts'), LIMITS);
    assert.deepEqual(expressionsOf(feed), hashesOf(HOSTS_EXPRESSIONS));
    assert.equal(feed.expressionCount, HOSTS_EXPRESSIONS.length);
    assert.equal(feed.badLineCount, 2);
  });

  it('reports a missing file as not-found, naming it', async () => {
    await rejectsWith(readSource(file('no-such-feed.txt', 'urls'), LIMITS), 'not-found', /no-such-feed\.txt: no such file/);
  });

  it('reports a folder as unreadable', async () => {
    await rejectsWith(
      readSource({ kind: 'file', path: fileURLToPath(fixtures), format: 'urls', csvColumn: undefined, refreshMinutes: undefined }, LIMITS),
      'unreadable',
      /cannot read the file/,
    );
  });

  it('refuses a file larger than the limit', async () => {
    await rejectsWith(
      readSource(file('urlhaus.csv', 'csv'), { ...LIMITS, maxBytes: 100 }),
      'too-large',
      /larger than the 100 bytes allowed; raise maxMegabytes \(or feedMaxMegabytes\)/,
    );
  });

  it('turns a CSV without URL column into a format failure', async () => {
    await rejectsWith(
      readSource(file('tranco.csv', 'csv'), LIMITS),
      'format',
      /tranco\.csv: cannot be read as csv: line 1: .*set csvColumn/,
    );
  });

  it('reads inline entries as lines of their format', async () => {
    const feed = await readSource({
      kind: 'entries',
      entries: ['Evil.example/', 'evil.example/x/../', 'http://no.example/'],
      format: 'expressions',
      csvColumn: undefined,
    });
    assert.deepEqual(expressionsOf(feed), hashesOf(['evil.example/']));
    assert.equal(feed.entryCount, 2);
    assert.deepEqual(
      feed.badLines.map((bad) => bad.line),
      [3],
    );
  });
});

describe('a source read: http(s)', () => {
  it('downloads and parses a feed', async () => {
    assert.deepEqual(expressionsOf(await readSource(fromUrl(`${base}/hosts.txt`, 'hosts'), LIMITS)), hashesOf(HOSTS_EXPRESSIONS));
  });

  it('follows redirects and undoes gzip', async () => {
    assert.deepEqual(expressionsOf(await readSource(fromUrl(`${base}/moved`, 'hosts'), LIMITS)), hashesOf(HOSTS_EXPRESSIONS));
    assert.deepEqual(expressionsOf(await readSource(fromUrl(`${base}/hosts.txt.gz`, 'hosts'), LIMITS)), hashesOf(HOSTS_EXPRESSIONS));
  });

  it('reports an HTTP error status', async () => {
    await rejectsWith(readSource(fromUrl(`${base}/missing`, 'urls'), LIMITS), 'http-status', /\/missing: the server answered HTTP 404/);
  });

  it('refuses an answer announcing more than the limit', async () => {
    await rejectsWith(readSource(fromUrl(`${base}/big`, 'urls'), LIMITS), 'too-large', /announces 2097152 bytes/);
  });

  it('stops reading an endless answer at the limit', async () => {
    await rejectsWith(readSource(fromUrl(`${base}/endless`, 'urls'), LIMITS), 'too-large', /larger than the 1048576 bytes allowed/);
  });

  it('gives up on an answer that does not finish in time', async () => {
    const started = Date.now();
    await rejectsWith(
      readSource(fromUrl(`${base}/silent`, 'urls'), { ...LIMITS, timeoutMs: 300 }),
      'timeout',
      /no complete answer within 0\.3 s; raise timeoutSeconds/,
    );
    assert.ok(Date.now() - started < 4_000);
  });

  it('reports a server that cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await rejectsWith(
      readSource(fromUrl(`http://127.0.0.1:${port}/feed.txt`, 'urls'), LIMITS),
      'network',
      /cannot download: .*ECONNREFUSED/,
    );
  });

  it('sends the user name and password of the URL as Basic authentication, and never shows them', async () => {
    const port = new URL(base).port;
    const feed = await readSource(fromUrl(`http://user:s3cret%21@127.0.0.1:${port}/private`, 'hosts'), LIMITS);
    assert.deepEqual(expressionsOf(feed), hashesOf(HOSTS_EXPRESSIONS));
    await rejectsWith(
      readSource(fromUrl(`http://user:wrong@127.0.0.1:${port}/private`, 'hosts'), LIMITS),
      'http-status',
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/private: the server answered HTTP 401`),
    );
  });
});

describe('a source read: text that is no feed of its format', () => {
  const entries = (lines: string[], format: SourceConfig['format'] = 'urls'): SourceConfig => ({
    kind: 'entries',
    entries: lines,
    format,
    csvColumn: undefined,
  });
  const good = (n: number) => Array.from({ length: n }, (_, i) => `http://good${i}.example/`);
  const bad = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`);

  it('fails a download that is an HTML page, as a failed download, saying it does not look like the format', async () => {
    await rejectsWith(
      readSource(fromUrl(`${base}/maintenance`, 'urls'), LIMITS),
      'not-a-feed',
      /\/maintenance: does not look like a urls feed: 7 of its 7 lines are bad; line 1: .*"format" is right/,
    );
  });

  it('fails a source whose every line is bad, and one with more than 90 % bad of at least 20 lines', async () => {
    await rejectsWith(
      readSource(entries(bad(1))),
      'not-a-feed',
      /does not look like a urls feed: 1 of its 1 lines are bad; line 1: "word0" is no host name/,
    );
    await rejectsWith(readSource(entries([...good(1), ...bad(19)])), 'not-a-feed', /19 of its 20 lines are bad/);
    await rejectsWith(
      readSource(entries(['0.0.0.0 a.example', ...bad(9).map((w) => `0.0.0.0 ${w}`)].concat(bad(190)), 'hosts')),
      'not-a-feed',
      /not look like a hosts feed: 199 of its 200 lines/,
    );
  });

  it('keeps a source with a few good lines among bad ones, and one with fewer than 20 lines not all bad', async () => {
    assert.equal((await readSource(entries([...good(2), ...bad(18)]))).badLineCount, 18);
    assert.equal((await readSource(entries([...good(1), ...bad(18)]))).badLineCount, 18);
    const comments = await readSource(entries(['# only comments', '']));
    assert.deepEqual([comments.entryCount, comments.badLineCount, comments.fullHashes.length], [0, 0, 0]);
  });
});

describe('loadList', () => {
  it('merges its sources into sorted, distinct full hashes, and reports the sources that failed', async () => {
    const loaded = await loadList(
      list([
        file('hosts.txt', 'hosts'),
        fromUrl(`${base}/hosts.txt`, 'hosts'),
        fromUrl(`${base}/missing`, 'urls'),
        { kind: 'entries', entries: ['extra.example/', 'malware.example/'], format: 'expressions', csvColumn: undefined },
        file('absent.txt', 'urls'),
      ]),
      LIMITS,
    );
    const expected = [...HOSTS_EXPRESSIONS, 'extra.example/'].map(sha256).sort((a, b) => Buffer.compare(a, b));
    assert.deepEqual(Buffer.from(loaded.fullHashes), Buffer.concat(expected));
    assert.equal(loaded.expressions, 6);
    assert.equal(loaded.badLines, 4, 'two bad lines from each copy of the hosts file');
    assert.deepEqual(
      loaded.errors.map((error) => error.failure),
      ['http-status', 'not-found'],
    );
    assert.deepEqual(
      loaded.sources.map((source) => [source.expressionCount, source.badLineCount]),
      [
        [5, 2],
        [5, 2],
        [2, 0],
      ],
    );
    assert.equal(loaded.sources[0]!.badLines[0]!.line, 24);
  });

  it("keeps its sources' copies whole when it merges them off the main thread, for the next merge", async () => {
    const states = new SourceStates();
    const expressions = (lines: string[]): SourceConfig => ({
      kind: 'entries',
      entries: lines,
      format: 'expressions',
      csvColumn: undefined,
    });
    const sources = [expressions(['a.example/', 'b.example/']), expressions(['b.example/', 'c.example/'])];
    const first = await loadList(list(sources), LIMITS, states);
    assert.deepEqual(Buffer.from(first.fullHashes), hashesOf(['a.example/', 'b.example/', 'c.example/']));
    const copies = await Promise.all(sources.map((source, i) => states.read('test-4b', i, source, sourceLimits(source, LIMITS), 'held')));
    // A copy moved to a worker would be left empty (its buffer detached).
    assert.deepEqual(
      copies.map(({ copy }) => copy!.fullHashes.length),
      [64, 64],
    );
    const second = await loadList(list([...sources, expressions(['d.example/'])]), LIMITS, states);
    assert.deepEqual(Buffer.from(second.fullHashes), hashesOf(['a.example/', 'b.example/', 'c.example/', 'd.example/']));
  });

  it('gives an empty list, not an error, when every source fails', async () => {
    const loaded = await loadList(list([file('absent.txt', 'urls')]), LIMITS);
    assert.equal(loaded.fullHashes.length, 0);
    assert.equal(loaded.expressions, 0);
    assert.equal(loaded.errors.length, 1);
  });
});

describe('refresh intervals', () => {
  it('come from the sources', () => {
    const sources = [file('hosts.txt', 'hosts'), fromUrl('https://a.example/', 'urls', 90), file('urlhaus.csv', 'csv', 15)];
    assert.deepEqual(sources.map(sourceRefreshMs), [undefined, 90 * 60_000, 15 * 60_000]);
  });
});
