import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema, SearchHashesResponseSchema } from '../../src/proto/v5.ts';
import { URLS_PER_BATCH, URLS_PER_LOCAL_BATCH } from '../../src/cli/check-run.ts';
import { EXIT } from '../../src/cli/io.ts';
import { expressionHashString } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import { startFakeServer, type Answer, type FakeServer } from '../client/fake-server.ts';
import { prefixList, prefixesOf } from '../client/lists-fixture.ts';
import { diffAnswer, searchAnswer as webRiskSearchAnswer, startFakeWebRisk } from '../client/fake-web-risk.ts';
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { run } from './run.ts';

const BAD = 'malware.sbtest.example/';
let server: FakeServer;
let failing = false;
/** Searches answered before the server starts failing them, when set. */
let searchesBeforeFailing: number | undefined;

before(async () => {
  server = await startFakeServer((call): Answer => {
    if (failing) return { status: 503 };
    if (call.rpc === 'BatchGetHashLists') {
      const lists = call.request.names.map((name) =>
        prefixList(name, 'v1', name === 'mw-4b' ? prefixesOf(BAD) : new Uint32Array(0), { minimumWaitMs: 1_800_000 }),
      );
      return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
    }
    assert.equal(call.rpc, 'SearchHashes');
    if (searchesBeforeFailing !== undefined && searchesBeforeFailing-- <= 0) return { status: 500 };
    const listed = expressionHashString(BAD);
    const asked = new Set(call.request.hashPrefixes.map((p) => Buffer.from(p).toString('latin1')));
    const fullHashes = asked.has(listed.slice(0, 4))
      ? [{ fullHash: Buffer.from(listed, 'latin1'), fullHashDetails: [{ threatType: 1, attributes: [] }] }]
      : [];
    return { rpc: 'SearchHashes', message: create(SearchHashesResponseSchema, { fullHashes, cacheDuration: durationFromMs(300_000) }) };
  });
});
after(async () => {
  failing = false;
  await server.close();
});

describe('sbkit check', () => {
  it('exits 0 and says SAFE when every URL is safe', async () => {
    const { status, out } = await run(['check', '--server', server.url, 'http://safe.example/']);
    assert.equal(status, EXIT.SAFE);
    assert.match(out, /^SAFE\s+http:\/\/safe\.example\/$/m);
  });

  it('exits 1 and words the warning as a suspicion (SB-3)', async () => {
    const { status, out } = await run(['check', '--server', server.url, 'http://safe.example/', `http://${BAD}`]);
    assert.equal(status, EXIT.UNSAFE);
    assert.match(out, /^UNSAFE\s+http:\/\/malware\.sbtest\.example\/: suspected malware \(matched malware\.sbtest\.example\/\)$/m);
  });

  it('reads URLs from standard input and prints JSON', async () => {
    const { status, out } = await run(
      ['check', '--server', server.url, '--stdin', '--json'],
      `# comment\nhttp://${BAD}\n\nhttp://ok.example/\n`,
    );
    assert.equal(status, EXIT.UNSAFE);
    const results = JSON.parse(out) as { url: string; verdict: string; threats: { threatType: string }[] }[];
    assert.deepEqual(
      results.map((r) => [r.url, r.verdict]),
      [
        [`http://${BAD}`, 'UNSAFE'],
        ['http://ok.example/', 'SAFE'],
      ],
    );
    assert.equal(results[0]!.threats[0]!.threatType, 'MALWARE');
    assert.equal(out, `${JSON.stringify(results, null, 2)}\n`, 'one JSON array, laid out as JSON.stringify does');
  });

  it('exits 2 when the server fails, and says UNKNOWN: not checked, never SAFE', async () => {
    failing = true;
    const { status, out } = await run(['check', '--server', server.url, 'http://other.example/']);
    failing = false;
    assert.equal(status, EXIT.FAILED);
    assert.match(out, /^UNKNOWN\s+http:\/\/other\.example\/: not checked \(.*HTTP 503.*\)$/m);
    assert.doesNotMatch(out, /SAFE/);
  });

  it('says in JSON who answered (nobody, for UNKNOWN) and why, with the error code', async () => {
    const unreachable = await run(['check', '--server', 'http://127.0.0.1:9', '--json', 'http://example.com/']);
    assert.equal(unreachable.status, EXIT.FAILED);
    const [line] = JSON.parse(unreachable.out) as { error: { message: string } }[];
    assert.deepEqual(line, {
      url: 'http://example.com/',
      canonicalUrl: 'http://example.com/',
      verdict: 'UNKNOWN',
      answeredBy: null,
      threats: [],
      error: { code: 'SBKIT_TRANSPORT_NETWORK', message: line!.error.message },
    });
    assert.match(line.error.message, /cannot reach http:\/\/127\.0\.0\.1:9\//);
  });

  it('exits 5 (4 | 1) for an invalid URL beside an unsafe one, and still checks the others', async () => {
    const { status, out } = await run(['check', '--server', server.url, 'javascript:alert(1)', `http://${BAD}`]);
    assert.equal(status, EXIT.INVALID_INPUT | EXIT.UNSAFE);
    assert.match(out, /^INVALID\s+javascript:alert\(1\): invalid URL/m);
    assert.match(out, /^UNSAFE\s+http:\/\/malware/m);
  });

  it('ORs every verdict into the exit status: phishing, ftp and safe on stdin exit 5; unsafe and unchecked exit 3', async () => {
    const mixed = await run(['check', '--server', server.url, '--stdin'], `http://${BAD}\nftp://files.example/x\nhttp://ok.example/\n`);
    assert.equal(mixed.status, 5);
    // A first batch answered, with the unsafe URL; the second's search fails.
    const urls = [`http://${BAD}`, ...Array.from({ length: URLS_PER_BATCH }, (_, i) => `http://h${i}.example/`)];
    searchesBeforeFailing = 1;
    const split = await run(['check', '--server', server.url, '--stdin'], `${urls.join('\n')}\n`);
    searchesBeforeFailing = undefined;
    assert.match(split.out, /^UNSAFE\s+http:\/\/malware/m);
    assert.match(split.out, /^UNKNOWN\s+http:\/\/h99\.example\/: not checked/m);
    assert.equal(split.status, 3);
  });

  it('exits 4 without URLs and for a bad flag value', async () => {
    assert.equal((await run(['check', '--server', server.url])).status, EXIT.INVALID_INPUT);
    const bad = await run(['check', '--timeout', 'soon', 'http://a.example/']);
    assert.equal(bad.status, EXIT.INVALID_INPUT);
    assert.match(bad.err, /--timeout must be a positive number/);
    assert.equal((await run(['check', '--mode', 'psychic', 'http://a.example/'])).status, EXIT.INVALID_INPUT);
  });

  it('checks many URLs with few searches, a batch at a time, in the order given', async () => {
    const count = 2 * URLS_PER_BATCH + 50;
    const urls = Array.from({ length: count }, (_, i) => `http://host${i}.example/page`);
    urls.splice(150, 0, `http://${BAD}`, 'javascript:alert(1)');
    const before = server.requests.length;
    const { status, out } = await run(['check', '--server', server.url, '--stdin'], `${urls.join('\n')}\n`);
    assert.equal(status, EXIT.INVALID_INPUT | EXIT.UNSAFE);
    const lines = out.trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split(/\s+/)[1]!.replace(/:$/, '')),
      urls,
    );
    assert.match(lines[150]!, /^UNSAFE\s+http:\/\/malware/);
    assert.match(lines[151]!, /^INVALID/);
    // Two prefixes per URL, at most 250 to a request: one search per batch of a hundred URLs.
    assert.equal(server.requests.length - before, Math.ceil(count / URLS_PER_BATCH));
  });

  it('makes batches of deep URLs smaller, so that each batch is one search request of at most 250 prefixes', async () => {
    // Each has 30 expressions (5 hosts × 6 paths): eight URLs fill a request.
    const urls = Array.from({ length: 40 }, (_, i) => `http://a.b.c.d.host${i}.example/1/2/3/4/5.html?q=${i}`);
    const before = server.requests.length;
    const { status } = await run(['check', '--server', server.url, '--stdin'], `${urls.join('\n')}\n`);
    assert.equal(status, EXIT.SAFE);
    const searches = server.requests.slice(before);
    const sizes = searches.map((call) => (call.request as { hashPrefixes: Uint8Array[] }).hashPrefixes.length);
    assert.deepEqual(sizes, Array(5).fill(240), 'five requests of eight URLs, one at a time');
  });
});

describe('sbkit check with local lists', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbkit-check-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('says UNKNOWN, and exits 2, while the lists were never downloaded; and says it is backing off', async () => {
    const data = join(dir, 'never');
    failing = true;
    const first = await run(['check', '--server', server.url, '--mode', 'local', '--data', data, 'http://ok.example/']);
    failing = false;
    assert.equal(first.status, EXIT.FAILED);
    assert.match(
      first.out,
      /^UNKNOWN\s+http:\/\/ok\.example\/: not checked \(the local lists se-4b, mw-4b, uws-4b, uwsa-4b, pha-4b have never been downloaded/m,
    );
    assert.match(first.err, /^sbkit: lists not updated: .*HTTP 503.*; backing off until \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
    const before = server.requests.length;
    const again = await run(['check', '--server', server.url, '--mode', 'local', '--data', data, '--json', 'http://ok.example/']);
    assert.equal(server.requests.length, before, 'nothing asked during the back-off');
    assert.equal(again.status, EXIT.FAILED);
    assert.match(again.err, /^sbkit: lists not updated: the last update failed; backing off until \d{4}-.*Z$/m);
    assert.deepEqual(
      (JSON.parse(again.out) as { verdict: string; error: { code: string } }[]).map((r) => [r.verdict, r.error.code]),
      [['UNKNOWN', 'SBKIT_LISTS_NOT_CURRENT_NEVER_UPDATED']],
    );
  });

  it('refuses a list the server does not publish, naming those it does, and checks nothing (exit 4)', async () => {
    const result = await run(['check', '--server', server.url, '--lists', 'foo-4b', '--data', join(dir, 'foo'), 'http://ok.example/']);
    assert.equal(result.status, EXIT.INVALID_INPUT);
    assert.equal(result.out, '');
    assert.match(result.err, /^sbkit: the server publishes no list "foo-4b"; it publishes se-4b, mw-4b, /m);
  });

  it('says SAFE plainly once the lists are there', async () => {
    const { status, out } = await run([
      'check',
      '--server',
      server.url,
      '--mode',
      'local',
      '--data',
      join(dir, 'fresh'),
      'http://ok.example/',
      `http://${BAD}`,
    ]);
    assert.equal(status, EXIT.UNSAFE);
    assert.match(out, /^SAFE\s+http:\/\/ok\.example\/$/m);
    assert.match(out, /^UNSAFE\s+http:\/\/malware/m);
  });

  it('streams --stdin: each batch printed as it completes, in input order, with a bounded number of URLs read ahead', async (t) => {
    const count = 30_000;
    const urlAt = (i: number) => (i === 12_345 ? `http://${BAD}` : `https://s${i % 997}.example.org/p/${i}?q=${i}`);
    let read = 0;
    let printed = 0;
    let mostAhead = 0;
    const outOfOrder: string[] = [];
    // Standard input made as it is read: what has been read and not yet printed is what the command holds.
    async function* lines(): AsyncGenerator<string> {
      for (let i = 0; i < count; i += 10) {
        let chunk = '';
        for (let j = i; j < i + 10; j++) chunk += `${urlAt(j)}\n`;
        read = i + 10;
        yield chunk;
      }
    }
    const io: CliIo = {
      out: (text) => {
        for (const line of text.split('\n')) {
          if (line === '') continue;
          const url = line.split(/\s+/)[1]!.replace(/:$/, '');
          if (url !== urlAt(printed)) outOfOrder.push(`${printed}: ${line}`);
          printed++;
        }
        mostAhead = Math.max(mostAhead, read - printed);
      },
      err: () => {},
      stdin: Readable.from(lines()),
      color: false,
      interactive: false,
    };
    const status = await main(
      ['node', 'sbkit', 'check', '--server', server.url, '--mode', 'local', '--data', join(dir, 'stream'), '--stdin'],
      io,
    );
    assert.equal(status, EXIT.UNSAFE);
    assert.equal(printed, count);
    assert.deepEqual(outOfOrder, []);
    // A batch (local mode's), and what the line reader and the stream buffer hold ahead of it: a few
    // thousand lines at most, whatever the input's length. A command that read all its input first would
    // be 30,000 ahead.
    t.diagnostic(`at most ${mostAhead} URLs read and not yet printed`);
    assert.ok(mostAhead <= URLS_PER_LOCAL_BATCH + 2048, `${mostAhead} URLs read and not yet printed`);
  });
});

describe('sbkit check --protocol webrisk', () => {
  it("checks with Web Risk's hashes:search, a prefix a request, and with its lists with --data", async () => {
    const webRisk = await startFakeWebRisk((call) =>
      call.method === 'computeDiff'
        ? diffAnswer('v1', call.threatType === 1 ? prefixesOf(BAD) : new Uint32Array(0), { nextDiffAt: Date.now() + 1_800_000 })
        : webRiskSearchAnswer(
            expressionHashString(BAD).startsWith(call.hashPrefix.toString('latin1'))
              ? [{ hash: expressionHashString(BAD), threatTypes: [1] }]
              : [],
            Date.now() + 300_000,
          ),
    );
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-webrisk-'));
    try {
      const flags = ['--protocol', 'webrisk', '--server', webRisk.url, '--key', 'k'];
      const unsafe = await run(['check', ...flags, `http://${BAD}`]);
      assert.equal(unsafe.status, EXIT.UNSAFE, unsafe.err);
      assert.ok(webRisk.calls.every((c) => c.method === 'search' && c.params.get('key') === 'k'));
      const local = await run(['check', ...flags, '--data', dir, 'http://safe.example/', `http://${BAD}`]);
      assert.equal(local.status, EXIT.UNSAFE, local.err);
      assert.match(local.out, /SAFE/);
      assert.deepEqual(
        webRisk.calls.filter((c) => c.method === 'computeDiff').map((c) => c.threatType),
        [2, 1, 3],
      );
      assert.deepEqual(webRisk.scriptErrors, []);
    } finally {
      await webRisk.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
