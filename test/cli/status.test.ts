import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../src/cli/io.ts';
import type { ServerStatus } from '../../src/server/web/status.ts';
import { run } from './run.ts';

/** A server answering /status.json with `status`, as a running sbkit serve would. */
let status: Partial<ServerStatus>;
let url: string;
const server = createServer((_request, response) =>
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(status)),
);
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const base = {
  version: '1.2.3',
  serving: 'sbkit.json',
  uptimeSeconds: 5,
  lists: [],
  requests: { answered: 0, refused: 0, failed: 0, perMinute: [] },
  loadControl: null,
};

describe('sbkit status', () => {
  it('shows each feed source in words, with what the server sent made harmless for the terminal', async () => {
    const feed = { list: 'mw-4b', source: 0, kind: 'url', entries: 1, bytes: 10, requests: 1, notModified: 0 } as const;
    status = {
      ...base,
      feeds: [
        { ...feed, name: 'urlhaus', state: 'fresh', summary: 'fresh, 1 entry, checked 3 s ago' },
        { ...feed, name: 'evil\u001b[2J', state: 'failing', summary: 'failing since … (2 tries): HTTP 500' },
      ] as ServerStatus['feeds'],
    };
    const result = await run(['status', '--server', url]);
    assert.equal(result.status, EXIT.SAFE, result.err);
    assert.match(result.out, /^mw-4b\s+urlhaus\s+fresh, 1 entry, checked 3 s ago$/m);
    assert.match(result.out, /^mw-4b\s+evil\uFFFD\[2J\s+failing since … \(2 tries\): HTTP 500$/m);
    assert.ok(!result.out.includes('\u001b'), 'no escape character reaches the terminal');
  });

  it("says why a proxy's list is not served, made harmless for the terminal", async () => {
    const list = {
      description: 'Malware (mirrored)',
      version: 'ab'.repeat(16),
      entries: 1,
      publishedAt: '2026-11-28T10:00:00.000Z',
      ageSeconds: 4000,
    };
    status = {
      ...base,
      lists: [
        { ...list, name: 'mw-4b', unavailable: "this server's copy of the upstream's mw-4b is not current\u001b[2J" },
        { ...list, name: 'se-4b' },
      ],
    };
    const result = await run(['status', '--server', url]);
    assert.equal(result.status, EXIT.SAFE, result.err);
    assert.match(result.out, /^mw-4b: not served: this server's copy of the upstream's mw-4b is not current\uFFFD\[2J$/m);
    assert.doesNotMatch(result.out, /^se-4b: not served/m);
  });

  it('shows no feeds table for a server without feeds, or one from before they were shown', async () => {
    status = { ...base };
    const result = await run(['status', '--server', url]);
    assert.equal(result.status, EXIT.SAFE, result.err);
    assert.doesNotMatch(result.out, /^list\s+source\s+state/m);
  });
});
