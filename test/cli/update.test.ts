import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema } from '../../src/proto/v5.ts';
import { EXIT } from '../../src/cli/io.ts';
import { startFakeServer, type FakeServer } from '../client/fake-server.ts';
import { fullHashesOf, fullHashList, prefixList, prefixesOf } from '../client/lists-fixture.ts';
import { run } from './run.ts';

let server: FakeServer;
let dir: string;
let failing = false;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-cli-'));
  server = await startFakeServer((call) => {
    if (failing) return { status: 503 };
    const names = call.rpc === 'BatchGetHashLists' ? call.request.names : [];
    const lists = names.map((name) =>
      name === 'gc-32b'
        ? fullHashList(name, 'gc-v1', fullHashesOf('popular.example/'))
        : prefixList(name, `${name}-v1`, name === 'mw-4b' ? prefixesOf('malware.sbtest.example/') : new Uint32Array(0), {
            minimumWaitMs: 1_800_000,
          }),
    );
    return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
  });
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sbkit update and sbkit lists', () => {
  it('refuses to list a folder that holds no database, a missing one or a file, with status 4 and no table', async () => {
    const empty = await run(['lists', '--data', dir]);
    assert.equal(empty.status, EXIT.INVALID_INPUT);
    assert.equal(empty.out, '');
    assert.match(
      empty.err,
      /^sbkit: --data \S+ holds no local database \(no list file, no client-state\.json\); "sbkit update --data \S+" makes one$/m,
    );
    const missing = join(dir, 'missing');
    const none = await run(['lists', '--data', missing]);
    assert.equal(none.status, EXIT.INVALID_INPUT);
    assert.equal(none.out, '');
    assert.match(none.err, /^sbkit: --data \S+missing: no such folder, so no local database; "sbkit update --data \S+missing" makes one$/m);
    await assert.rejects(stat(missing), 'nothing was created');
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'not a database\n');
    const notFolder = await run(['lists', '--data', file]);
    assert.equal(notFolder.status, EXIT.INVALID_INPUT);
    assert.match(notFolder.err, /^sbkit: --data \S+notes\.txt is a file, not the folder of a local database$/m);
  });

  it('updates the lists into the data folder, then shows them', async () => {
    const { status, out } = await run(['update', '--server', server.url, '--data', dir, '--lists', 'se-4b,mw-4b']);
    assert.equal(status, EXIT.SAFE);
    // Real-time mode, the default with a data folder, keeps the global cache too.
    assert.match(out, /^updated: se-4b, mw-4b, gc-32b$/m);
    assert.match(out, /^next update: \d{4}-\d\d-\d\dT/m);
    const lists = await run(['lists', '--data', dir, '--lists', 'se-4b,mw-4b', '--json']);
    const parsed = JSON.parse(lists.out) as { name: string; entries: number; version: string; updatedAt: string | null }[];
    assert.deepEqual(
      parsed.map((l) => [l.name, l.entries, Buffer.from(l.version, 'base64').toString()]),
      [
        ['se-4b', 0, 'se-4b-v1'],
        ['mw-4b', 1, 'mw-4b-v1'],
        ['gc-32b', 1, 'gc-v1'],
      ],
    );
    assert.ok(parsed.every((l) => l.updatedAt !== null));
  });

  it('does not ask again within the minimum wait, even from a new process', async () => {
    const before = server.requests.length;
    const { status, out } = await run(['update', '--server', server.url, '--data', dir, '--lists', 'se-4b,mw-4b']);
    assert.equal(status, EXIT.SAFE);
    assert.match(out, /nothing to update yet/);
    assert.equal(server.requests.length, before);
  });

  it('exits 2 when the server fails, leaving a database that lists every list as never updated', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'sbkit-cli-'));
    try {
      failing = true;
      const { status, err } = await run(['update', '--server', server.url, '--data', fresh]);
      failing = false;
      assert.equal(status, EXIT.FAILED);
      assert.match(err, /HTTP 503/);
      const lists = await run(['lists', '--data', fresh, '--lists', 'se-4b,mw-4b']);
      assert.equal(lists.status, EXIT.SAFE, lists.err);
      assert.match(lists.out, /^se-4b\s+-\s+0\s+e3b0c44298fc1c14\s+never$/m);
    } finally {
      failing = false;
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('says it is backing off after a failure, until when, and exits 2, asking nothing (RF-4)', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'sbkit-cli-'));
    try {
      failing = true;
      assert.equal((await run(['update', '--server', server.url, '--data', fresh])).status, EXIT.FAILED);
      failing = false;
      const before = server.requests.length;
      const { status, out, err } = await run(['update', '--server', server.url, '--data', fresh]);
      assert.equal(server.requests.length, before);
      assert.equal(status, EXIT.FAILED);
      assert.match(err, /^sbkit update: backing off after 1 failed update until (\d{4}-\d\d-\d\dT[\d:.]+Z); nothing was asked$/m);
      assert.doesNotMatch(out, /minimum wait/);
      const json = JSON.parse((await run(['update', '--server', server.url, '--data', fresh, '--json'])).out) as {
        backoffUntil: string | null;
      };
      assert.equal(json.backoffUntil, /until (\S+);/.exec(err)![1]);
    } finally {
      failing = false;
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a list the server does not publish with exit 4, naming the lists it does, and stores nothing', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'sbkit-cli-'));
    try {
      const { status, out, err } = await run(['update', '--server', server.url, '--data', fresh, '--lists', 'foo-4b', '--json']);
      assert.equal(status, EXIT.INVALID_INPUT);
      const report = JSON.parse(out) as { updated: string[]; notServed: string[]; error: { code: string; message: string } };
      assert.deepEqual(report.updated, ['gc-32b'], 'the global cache, which the server has, is kept');
      assert.deepEqual(report.notServed, ['foo-4b']);
      assert.equal(report.error.code, 'SBKIT_UNKNOWN_LIST');
      assert.match(report.error.message, /publishes no list "foo-4b"; it publishes se-4b, mw-4b/);
      assert.equal(err, '');
      const lists = JSON.parse((await run(['lists', '--data', fresh, '--lists', 'foo-4b', '--json'])).out) as {
        name: string;
        updatedAt: null;
      }[];
      assert.deepEqual(
        lists.map((l) => [l.name, l.updatedAt]),
        [
          ['foo-4b', null],
          ['gc-32b', lists[1]!.updatedAt],
        ],
      );
      assert.notEqual(lists[1]!.updatedAt, null);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('needs a data folder', async () => {
    assert.equal((await run(['update', '--server', server.url])).status, EXIT.INVALID_INPUT);
    assert.equal((await run(['lists'])).status, EXIT.INVALID_INPUT);
  });
});
