// The client commands' API key from the environment (SBKIT_API_KEY, or the file SBKIT_API_KEY_FILE
// names), against a fake server on loopback that records the key each request carried. `sbkit serve`'s
// upstream key and admin token are in serve.test.ts.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { EXIT } from '../../src/cli/io.ts';
import { BatchGetHashListsResponseSchema } from '../../src/proto/v5.ts';
import { startFakeServer, type FakeServer } from '../client/fake-server.ts';
import { prefixList } from '../client/lists-fixture.ts';
import { withEnvironment } from './environment.ts';
import { run } from './run.ts';

const KEY = 'AIzaSy-key-from-the-environment';
let server: FakeServer;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-secret-variables-'));
  server = await startFakeServer((call) => {
    const names = call.rpc === 'BatchGetHashLists' ? call.request.names : [];
    const lists = names.map((name) => prefixList(name, `${name}-v1`, new Uint32Array(0), { minimumWaitMs: 1_800_000 }));
    return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
  });
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** `sbkit update` into a fresh folder with these variables; the keys its requests carried (the listing of lists, then the batch). */
async function updateWith(variables: Record<string, string | undefined>, ...flags: string[]) {
  const before = server.requests.length;
  const data = await mkdtemp(join(dir, 'data-'));
  const result = await withEnvironment(variables, () => run(['update', '--server', server.url, '--data', data, ...flags]));
  return { ...result, keys: server.requests.slice(before).map((request) => request.apiKey) };
}

/** Neither the output nor the errors hold the key. */
function assertKeyNotShown(result: { out: string; err: string }): void {
  assert.ok(!`${result.out}${result.err}`.includes(KEY), `the key was shown: ${result.err}`);
}

describe('the API key from the environment', () => {
  it('is sent as key= from SBKIT_API_KEY, or from the file SBKIT_API_KEY_FILE names, its final line break left out', async () => {
    const direct = await updateWith({ SBKIT_API_KEY: KEY, SBKIT_API_KEY_FILE: undefined });
    assert.equal(direct.status, EXIT.SAFE, direct.err);
    assert.deepEqual(direct.keys, [KEY, KEY]);
    const file = join(dir, 'api-key');
    await writeFile(file, `${KEY}\n`);
    const fromFile = await updateWith({ SBKIT_API_KEY: undefined, SBKIT_API_KEY_FILE: file });
    assert.equal(fromFile.status, EXIT.SAFE, fromFile.err);
    assert.deepEqual(fromFile.keys, [KEY, KEY]);
    assertKeyNotShown(fromFile);
    const none = await updateWith({ SBKIT_API_KEY: '', SBKIT_API_KEY_FILE: undefined });
    assert.deepEqual(none.keys, [undefined, undefined], 'an empty variable is no key');
  });

  it('gives way to --key, whose command reads neither variable', async () => {
    const result = await updateWith({ SBKIT_API_KEY: undefined, SBKIT_API_KEY_FILE: join(dir, 'no-such-file') }, '--key', 'flag-key');
    assert.equal(result.status, EXIT.SAFE, result.err);
    assert.deepEqual(result.keys, ['flag-key', 'flag-key']);
  });

  it('is refused with status 4 when both variables are set, or the file cannot give a key, naming the variable and the path', async () => {
    const empty = join(dir, 'empty-key');
    await writeFile(empty, '\n');
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [{ SBKIT_API_KEY: KEY, SBKIT_API_KEY_FILE: empty }, /^sbkit: SBKIT_API_KEY and SBKIT_API_KEY_FILE are both set: set one of them$/m],
      [
        { SBKIT_API_KEY: undefined, SBKIT_API_KEY_FILE: join(dir, 'missing') },
        /^sbkit: SBKIT_API_KEY_FILE names \S+missing, which cannot be read \(ENOENT: no such file or directory\)$/m,
      ],
      [{ SBKIT_API_KEY: undefined, SBKIT_API_KEY_FILE: empty }, /^sbkit: SBKIT_API_KEY_FILE names \S+empty-key, which is empty$/m],
    ];
    for (const [variables, message] of cases) {
      const before = server.requests.length;
      for (const args of [
        ['check', '--server', server.url, 'http://example.com/'],
        ['update', '--server', server.url, '--data', dir],
      ]) {
        const result = await withEnvironment(variables, () => run(args));
        assert.equal(result.status, EXIT.INVALID_INPUT, `${args[0]}: ${result.err}`);
        assert.match(result.err, message);
        assertKeyNotShown(result);
      }
      assert.equal(server.requests.length, before, 'nothing was asked');
    }
  });

  it('is not read by sbkit lists, which asks no server and takes no --key', async () => {
    const data = await mkdtemp(join(dir, 'data-'));
    assert.equal((await run(['update', '--server', server.url, '--data', data])).status, EXIT.SAFE);
    const lists = await withEnvironment({ SBKIT_API_KEY: undefined, SBKIT_API_KEY_FILE: join(dir, 'missing') }, () =>
      run(['lists', '--data', data]),
    );
    assert.equal(lists.status, EXIT.SAFE, lists.err);
    const flag = await run(['lists', '--data', data, '--key', KEY]);
    assert.equal(flag.status, EXIT.INVALID_INPUT);
    assert.match(flag.err, /unknown option '--key'/);
  });

  it('is named in the help of the commands that send it', async () => {
    for (const command of ['check', 'update']) {
      const help = await run([command, '--help']);
      assert.match(help.out, /--key <key>\s+API key, sent as key=; or from SBKIT_API_KEY or\s+SBKIT_API_KEY_FILE/);
      assert.match(
        help.out,
        /^Environment:\n {2}SBKIT_API_KEY {7}the API key, when --key is not given\n {2}SBKIT_API_KEY_FILE {2}a file that holds it/m,
      );
    }
  });
});
