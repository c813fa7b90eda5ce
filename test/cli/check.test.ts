import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { SearchHashesResponseSchema } from '../../src/proto/v5.ts';
import { EXIT } from '../../src/cli/io.ts';
import { expressionHashString } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import { startFakeServer, type Answer, type FakeServer } from '../client/fake-server.ts';
import { run } from './run.ts';

const BAD = 'malware.sbtest.example/';
let server: FakeServer;
let failing = false;

before(async () => {
  server = await startFakeServer((call): Answer => {
    if (failing) return { status: 503 };
    assert.equal(call.rpc, 'SearchHashes');
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
    const { status, out } = await run(['check', '--server', server.url, '--stdin', '--json'], `# comment\nhttp://${BAD}\n\nhttp://ok.example/\n`);
    assert.equal(status, EXIT.UNSAFE);
    const results = JSON.parse(out) as { url: string; verdict: string; threats: { threatType: string }[] }[];
    assert.deepEqual(results.map((r) => [r.url, r.verdict]), [[`http://${BAD}`, 'UNSAFE'], ['http://ok.example/', 'SAFE']]);
    assert.equal(results[0]!.threats[0]!.threatType, 'MALWARE');
  });

  it('exits 2 when the server fails, and says the verdict is not confirmed', async () => {
    failing = true;
    const { status, out } = await run(['check', '--server', server.url, 'http://other.example/']);
    failing = false;
    assert.equal(status, EXIT.FAILED);
    assert.match(out, /^SAFE\?\s+http:\/\/other\.example\/: not confirmed \(the server answered HTTP 503\)$/m);
  });

  it('exits 4 for an invalid URL and still checks the others', async () => {
    const { status, out } = await run(['check', '--server', server.url, 'javascript:alert(1)', `http://${BAD}`]);
    assert.equal(status, EXIT.INVALID_INPUT);
    assert.match(out, /^INVALID\s+javascript:alert\(1\): invalid URL/m);
    assert.match(out, /^UNSAFE\s+http:\/\/malware/m);
  });

  it('exits 4 without URLs and for a bad flag value', async () => {
    assert.equal((await run(['check', '--server', server.url])).status, EXIT.INVALID_INPUT);
    const bad = await run(['check', '--timeout', 'soon', 'http://a.example/']);
    assert.equal(bad.status, EXIT.INVALID_INPUT);
    assert.match(bad.err, /--timeout must be a positive number/);
    assert.equal((await run(['check', '--mode', 'psychic', 'http://a.example/'])).status, EXIT.INVALID_INPUT);
  });
});
