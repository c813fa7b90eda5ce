import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema, SearchHashesResponseSchema } from '../../src/proto/v5.ts';
import { EXIT } from '../../src/cli/io.ts';
import { startFakeServer, type FakeServer } from '../client/fake-server.ts';
import { fullHashesOf, fullHashList, prefixList, prefixesOf } from '../client/lists-fixture.ts';
import { run } from './run.ts';

let server: FakeServer;
let dir: string;
let badChecksum = false;

before(async () => {
  server = await startFakeServer((call) => {
    if (call.rpc === 'SearchHashes') return { rpc: 'SearchHashes', message: create(SearchHashesResponseSchema, {}) };
    const names = call.rpc === 'BatchGetHashLists' ? call.request.names : [];
    const lists = names.map((name) =>
      name === 'gc-32b'
        ? fullHashList(name, 'gc-v1', fullHashesOf('popular.example/'))
        : prefixList(name, `${name}-v1`, prefixesOf(`${name}.sbtest.example/`), {
            minimumWaitMs: 1_800_000,
            ...(badChecksum ? { checksum: new Uint8Array(32) } : {}),
          }),
    );
    return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
  });
});
after(async () => {
  await server.close();
});
beforeEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = await mkdtemp(join(tmpdir(), 'sbkit-events-'));
  badChecksum = false;
});

const flags = () => ['--server', server.url, '--data', dir, '--lists', 'se-4b,mw-4b'];

/** Flips the last byte of a list file: its checksum no longer matches. */
async function damage(name: string): Promise<void> {
  const file = join(dir, `${name}.sbl`);
  const bytes = await readFile(file);
  bytes[bytes.length - 1]! ^= 0x01;
  await writeFile(file, bytes);
}

const DAMAGED = /^sbkit: database file \S+se-4b\.sbl was not loaded \(checksum mismatch\); the list will be fetched again$/m;

describe('what the library says about the local database, on standard error', () => {
  it('sbkit lists reports a damaged file and leaves it where it is', async () => {
    assert.equal((await run(['update', ...flags()])).status, EXIT.SAFE);
    await damage('se-4b');
    const before = (await readdir(dir)).sort();
    // `sbkit lists` asks no server: it takes only the folder and the lists.
    const { status, out, err } = await run(['lists', '--data', dir, '--lists', 'se-4b,mw-4b']);
    assert.equal(status, EXIT.SAFE);
    assert.match(err, DAMAGED);
    assert.match(out, /^se-4b\s+-\s+0\s+\S+\s+never$/m);
    assert.deepEqual((await readdir(dir)).sort(), before, 'a read-only command changes nothing');
  });

  it('sbkit check and sbkit update report a damaged file, which they drop and fetch again', async () => {
    await run(['update', ...flags()]);
    await damage('se-4b');
    const check = await run(['check', ...flags(), 'http://ok.example/']);
    assert.match(check.err, DAMAGED);
    await damage('mw-4b');
    const update = await run(['update', ...flags()]);
    assert.match(update.err, /^sbkit: database file \S+mw-4b\.sbl was not loaded \(checksum mismatch\)/m);
  });

  it('sbkit update and sbkit check report lists dropped after a bad update', async () => {
    badChecksum = true;
    const update = await run(['update', ...flags()]);
    assert.equal(update.status, EXIT.FAILED);
    assert.match(update.err, /^sbkit: dropped list se-4b: update of list "se-4b" rejected \(checksum-mismatch\)/m);
    const check = await run(['check', ...flags().map((f) => (f === dir ? join(dir, 'other') : f)), 'http://ok.example/']);
    assert.match(check.err, /^sbkit: dropped list mw-4b: update of list "mw-4b" rejected \(checksum-mismatch\)/m);
  });
});
