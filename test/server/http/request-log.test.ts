import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, demoCatalog, LoadControl, type SafeBrowsingServer } from '../../../src/server/index.ts';
import { REQUEST_ID_HEADER } from '../../../src/server/http/request-log.ts';
import { RecordingLogger } from '../../support/recording-logger.ts';

/** A 4-byte prefix as a client sends it in a search's query: what the access log must never hold. */
const PREFIX = Buffer.from([0xfa, 0xce, 0xb0, 0x0c]).toString('base64');

async function started(accessLog: boolean): Promise<{ server: SafeBrowsingServer; url: string; log: RecordingLogger }> {
  const log = new RecordingLogger();
  const loadControl = await LoadControl.create();
  const server = createServer({ catalog: demoCatalog(), port: 0, loadControl, log, accessLog });
  return { server, url: await server.listen(), log };
}

describe('request ids and the access log', () => {
  let logged: Awaited<ReturnType<typeof started>>;
  let quiet: Awaited<ReturnType<typeof started>>;
  before(async () => {
    [logged, quiet] = await Promise.all([started(true), started(false)]);
  });
  after(async () => {
    await Promise.all([logged.server.close(), quiet.server.close()]);
  });

  it('gives every answer an id of its own, and never takes the one a client sends', async () => {
    const answers = await Promise.all(
      ['/healthz', '/v5/hashList/se-4b', '/nothing-here', '/healthz'].map((path) =>
        fetch(`${quiet.url}${path}`, { headers: { [REQUEST_ID_HEADER]: 'chosen-by-the-client' } }),
      ),
    );
    const ids = answers.map((answer) => answer.headers.get(REQUEST_ID_HEADER));
    assert.ok(
      ids.every((id) => id !== null && /^[\w-]{1,40}$/.test(id)),
      ids.join(' '),
    );
    assert.equal(new Set(ids).size, ids.length, 'distinct');
    assert.ok(!ids.includes('chosen-by-the-client'));
    assert.deepEqual(quiet.log.lines, [], 'no access log unless asked for');
  });

  it('logs method, route pattern, status, duration, client class and request id, never the prefixes searched', async () => {
    const search = await fetch(`${logged.url}/v5/hashes:search?hashPrefixes=${encodeURIComponent(PREFIX)}`, {
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' },
    });
    assert.equal(search.status, 200);
    const list = await fetch(`${logged.url}/v5/hashList/se-4b`, { headers: { 'user-agent': 'curl/8.5.0' } });
    assert.equal(list.status, 200);
    assert.equal((await fetch(`${logged.url}/no/such/path?secret=1`)).status, 404);
    const lines = logged.log.lines.filter((line) => line.message === 'request');
    assert.equal(lines.length, 3, JSON.stringify(logged.log.lines));
    const [searched, listed, missing] = lines.map((line) => line.fields!);
    assert.deepEqual(
      { ...searched, durationMs: undefined },
      {
        reqId: search.headers.get(REQUEST_ID_HEADER),
        method: 'GET',
        route: '/v5/hashes:search',
        status: 200,
        durationMs: undefined,
        client: 'browser',
      },
    );
    assert.ok(typeof searched!['durationMs'] === 'number' && searched!['durationMs'] >= 0);
    assert.deepEqual(
      [listed!['route'], listed!['client'], listed!['reqId']],
      ['/v5/hashList/{name}', 'bot', list.headers.get(REQUEST_ID_HEADER)],
    );
    assert.deepEqual([missing!['route'], missing!['status']], ['-', 404]);
    const everything = JSON.stringify(logged.log.lines);
    for (const secret of [PREFIX, encodeURIComponent(PREFIX), 'hashPrefixes', 'secret', 'se-4b', 'Mozilla', 'curl'])
      assert.ok(!everything.includes(secret), `${secret} in ${everything}`);
  });
});
