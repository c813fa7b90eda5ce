import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DiskSnapshotStore } from '../../../src/server/lists/disk-snapshot-store.ts';
import { ListHistory, type SizeConstraints } from '../../../src/server/lists/list-history.ts';
import { encodeVersion } from '../../../src/server/lists/list-version.ts';
import { SnapshotStoreError } from '../../../src/server/lists/snapshot-store-error.ts';
import { checksumOf, hashesFromBytes } from '../../../src/store/hash-list.ts';
import { nodeSha256 } from '../../../src/url/hash.ts';
import { definition, poolHashes } from './fixtures.ts';

const NO_LIMITS: SizeConstraints = { maxUpdateEntries: 0, maxDatabaseEntries: 0 };
const V1 = poolHashes([1, 2, 3, 4]);
const V2 = poolHashes([2, 3, 4, 5, 6]);
const V3 = poolHashes([6, 7, 8]);
const V4 = poolHashes([8, 9, 10, 11]);
const V5 = poolHashes([11, 12]);

const folders: string[] = [];
after(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'sbkit-disk-store-'));
  folders.push(made);
  return made;
}

/** A store on `dir` with its log kept, and a fresh history of list `name` that follows it: one server process. */
async function start(dir: string, keep = 3, name = 'test-4b', hashLength: 4 | 8 = 4) {
  const log: string[] = [];
  const store = await DiskSnapshotStore.open(dir, { log: (message) => log.push(message) });
  const history = new ListHistory(definition(hashLength, name), { keep });
  const restored = await store.follow([history]);
  return { store, history, log, restored };
}

/** The version a client holds once it is at snapshot `id` with no size limit. */
function versionAt(id: string): Uint8Array {
  return encodeVersion({ kind: 'settled', at: { snapshotId: id, limit: 0 } });
}

function damageReports(log: readonly string[]): string[] {
  return log.filter((line) => line.includes('cannot be used'));
}

/** Flips one byte of a file, in the middle of it. */
async function flipByte(file: string, at?: number): Promise<void> {
  const data = await readFile(file);
  const i = at ?? Math.floor(data.length / 2);
  data[i] = data[i]! ^ 0xff;
  await writeFile(file, data);
}

describe('DiskSnapshotStore', () => {
  it('restores the same versions after a restart: the current one serves searches, clients at older ones get diffs', async () => {
    const dir = await folder();
    const first = await start(dir);
    assert.deepEqual(first.restored, [], 'an empty folder holds no list');
    const s1 = await first.store.publish(first.history, V1);
    const s2 = await first.store.publish(first.history, V2);
    const s3 = await first.store.publish(first.history, V3);
    await first.store.close();

    const second = await start(dir);
    assert.deepEqual(second.restored, ['test-4b']);
    assert.deepEqual(second.history.keptIds(), [s1.id, s2.id, s3.id]);
    const current = second.history.current();
    assert.equal(current.id, s3.id);
    assert.equal(current.createdAt, s3.createdAt, 'published when it was, not at the restart');
    assert.deepEqual(current.fullHashBytes(), s3.fullHashBytes(), 'the full hashes, which searches need');
    assert.deepEqual(damageReports(second.log), []);
    assert.match(second.log.join('\n'), /restored 3 of 3 kept versions/);

    for (const [older, newer] of [
      [s1, s3],
      [s2, s3],
    ] as const) {
      const update = second.history.updateFor(versionAt(older.id), NO_LIMITS);
      assert.equal(update.partial, true, 'a kept version gets a diff after the restart');
      assert.deepEqual(update.checksum, newer.checksum);
    }
    // A publication after the restart diffs from versions published before it.
    const s4 = await second.store.publish(second.history, V4);
    const update = second.history.updateFor(versionAt(s2.id), NO_LIMITS);
    assert.equal(update.partial, true);
    assert.deepEqual(update.checksum, s4.checksum);
    assert.deepEqual(second.history.keptIds(), [s2.id, s3.id, s4.id]);
  });

  it('keeps at most keep version files and an index per list: the full hashes of the current one, the served hashes of the others', async () => {
    const dir = await folder();
    const { store, history } = await start(dir);
    const ids = [];
    for (const hashes of [V1, V2, V3, V4, V5]) ids.push((await store.publish(history, hashes)).id);
    const files = (await readdir(dir)).sort();
    assert.deepEqual(files, [`test-4b.${ids[2]}.served`, `test-4b.${ids[3]}.served`, `test-4b.${ids[4]}.full`, 'test-4b.history'].sort());
    assert.equal((await stat(join(dir, `test-4b.${ids[4]}.full`))).size, 72 + 2 * 32);
    assert.equal((await stat(join(dir, `test-4b.${ids[3]}.served`))).size, 72 + 4 * 4);
    // The same content again changes nothing; content still kept moves to the newest place, with its full hashes.
    await store.publish(history, V5);
    await store.publish(history, V4);
    assert.deepEqual(
      (await readdir(dir)).sort(),
      [`test-4b.${ids[2]}.served`, `test-4b.${ids[4]}.served`, `test-4b.${ids[3]}.full`, 'test-4b.history'].sort(),
    );
    await store.close();
    const again = await start(dir);
    assert.deepEqual(again.history.keptIds(), [ids[2], ids[4], ids[3]]);
  });

  it('keeps fewer versions when keepVersions is lowered, and removes the others at the next publication', async () => {
    const dir = await folder();
    const first = await start(dir, 4);
    for (const hashes of [V1, V2, V3, V4]) await first.store.publish(first.history, hashes);
    const kept = first.history.keptIds();
    const second = await start(dir, 2);
    assert.deepEqual(second.history.keptIds(), kept.slice(-2));
    await second.store.publish(second.history, V5);
    assert.equal((await readdir(dir)).length, 2 + 1);
  });

  it('restores a mirrored list (served hashes only) and its older versions', async () => {
    const dir = await folder();
    const first = await start(dir);
    const served = (bytes: Uint8Array) => hashesFromBytes(4, bytes);
    const a = await first.store.publishServed(first.history, served(Buffer.from('0000000100000002', 'hex')), 1000);
    const b = await first.store.publishServed(first.history, served(Buffer.from('000000020000000300000004', 'hex')), 2000);
    const second = await start(dir);
    assert.deepEqual(second.restored, ['test-4b']);
    assert.equal(second.history.current().id, b.id);
    assert.equal(second.history.current().kind, 'served');
    assert.equal(second.history.current().createdAt, 2000);
    const update = second.history.updateFor(versionAt(a.id), NO_LIMITS);
    assert.equal(update.partial, true);
    assert.deepEqual(update.checksum, b.checksum);
  });

  it('reports a damaged older version and skips it: its clients get the whole list, the others diffs', async () => {
    const dir = await folder();
    const first = await start(dir);
    const [s1, s2] = [await first.store.publish(first.history, V1), await first.store.publish(first.history, V2)];
    const s3 = await first.store.publish(first.history, V3);
    await flipByte(join(dir, `test-4b.${s1.id}.served`));

    const second = await start(dir);
    assert.deepEqual(second.restored, ['test-4b'], 'the list is served from what is intact');
    const [report] = damageReports(second.log);
    assert.match(report!, new RegExp(`test-4b\\.${s1.id}\\.served cannot be used \\(checksum mismatch\\); it is not served`));
    assert.deepEqual(second.history.keptIds(), [s2.id, s3.id]);
    assert.equal(second.history.updateFor(versionAt(s1.id), NO_LIMITS).partial, false);
    assert.equal(second.history.updateFor(versionAt(s2.id), NO_LIMITS).partial, true);
    // The damaged file goes with the next publication.
    await second.store.publish(second.history, V4);
    assert.ok(!(await readdir(dir)).includes(`test-4b.${s1.id}.served`));
  });

  it('reports a damaged current version: the list comes from its feeds, and the older versions still give diffs', async () => {
    const dir = await folder();
    const first = await start(dir);
    const s1 = await first.store.publish(first.history, V1);
    const s2 = await first.store.publish(first.history, V2);
    // A byte of the hashes, past the 72-byte header: only the checksum can tell.
    await flipByte(join(dir, `test-4b.${s2.id}.full`), 72 + 5);

    const second = await start(dir);
    assert.deepEqual(second.restored, [], 'not restored: a failing feed must not keep an empty list in service');
    assert.match(
      damageReports(second.log).join('\n'),
      new RegExp(`${s2.id}\\.full cannot be used \\(checksum mismatch\\).*loaded from its feeds`),
    );
    assert.equal(second.history.current().fullHashCount, 0, 'nothing damaged is served');
    const s3 = await second.store.publish(second.history, V3);
    assert.deepEqual(second.history.keptIds(), [...first.history.keptIds().slice(0, -1), s3.id]);
    assert.ok(second.history.keptIds().includes(s1.id));
    const update = second.history.updateFor(versionAt(s1.id), NO_LIMITS);
    assert.equal(update.partial, true);
    assert.deepEqual(update.checksum, s3.checksum);
  });

  it('reports a damaged, missing or foreign index and loads nothing of the list', async () => {
    for (const [damage, expected] of [
      [(index: string) => flipByte(index, 30), /checksum mismatch|not an sbkit list history/],
      [(index: string) => writeFile(index, 'not a history'), /not an sbkit list history/],
      [(index: string) => rm(index), undefined],
    ] as const) {
      const dir = await folder();
      const first = await start(dir);
      await first.store.publish(first.history, V1);
      await damage(join(dir, 'test-4b.history'));
      const second = await start(dir);
      assert.deepEqual(second.restored, []);
      assert.equal(second.history.current().fullHashCount, 0);
      if (expected === undefined) assert.deepEqual(damageReports(second.log), []);
      else assert.match(damageReports(second.log).join('\n'), expected);
    }
  });

  it('does not serve a version whose content is not what its id says, even with a consistent checksum', async () => {
    const dir = await folder();
    const first = await start(dir);
    const s1 = await first.store.publish(first.history, V1);
    const file = join(dir, `test-4b.${s1.id}.full`);
    const data = await readFile(file);
    // Another hash in place of the first, and the file's checksum made to match: a hand edit.
    data.fill(0x42, 72, 72 + 32);
    createHash('sha256').update(data.subarray(0, 40)).update(data.subarray(72)).digest().copy(data, 40);
    await writeFile(file, data);
    const second = await start(dir);
    assert.deepEqual(second.restored, []);
    assert.match(damageReports(second.log).join('\n'), /its content is version [0-9a-f]{32}/);
  });

  it('does not use versions kept for another hash length of the list', async () => {
    const dir = await folder();
    const first = await start(dir, 3, 'test', 4);
    await first.store.publish(first.history, V1);
    const second = await start(dir, 3, 'test', 8);
    assert.deepEqual(second.restored, []);
    assert.match(second.log.join('\n'), /keeps 4-byte versions of list test, the configuration serves 8-byte hashes/);
  });

  it('refuses to start, rather than prune, when a file of the history cannot be read (an I/O error is no damage)', async () => {
    for (const unreadableFile of ['index', 'older version'] as const) {
      const dir = await folder();
      const first = await start(dir);
      const s1 = await first.store.publish(first.history, V1);
      const s2 = await first.store.publish(first.history, V2);
      // A folder in a file's place: reading it fails with EISDIR, as a file this user may not read would.
      const file = join(dir, unreadableFile === 'index' ? 'test-4b.history' : `test-4b.${s1.id}.served`);
      const kept = await readFile(file);
      await rm(file);
      await mkdir(file);
      await assert.rejects(
        start(dir),
        (error: unknown) =>
          error instanceof SnapshotStoreError && error.code === 'SBKIT_SNAPSHOT_STORE_STORAGE' && error.message.includes(file),
        unreadableFile,
      );
      await rm(file, { recursive: true });
      await writeFile(file, kept);
      const again = await start(dir);
      assert.equal(again.history.current().id, s2.id, 'the history is all still there');
      assert.deepEqual(damageReports(again.log), []);
    }
  });

  it('removes what an interrupted write left, and leaves files that are not its own', async () => {
    const dir = await folder();
    const first = await start(dir, 1);
    const s1 = await first.store.publish(first.history, V1);
    await writeFile(join(dir, `test-4b.${'0'.repeat(32)}.full.tmp-0123456789abcdef`), 'half');
    await writeFile(join(dir, 'test-4b.history.tmp-0123456789abcdef'), 'half');
    await writeFile(join(dir, 'notes.tmp-1.txt'), 'the operator’s');
    await writeFile(join(dir, 'test-4b.full.tmp-mine'), 'a name like a temporary file’s');
    const second = await start(dir, 1);
    assert.equal(second.history.current().id, s1.id);
    assert.deepEqual(
      (await readdir(dir)).sort(),
      ['notes.tmp-1.txt', 'test-4b.full.tmp-mine', `test-4b.${s1.id}.full`, 'test-4b.history'].sort(),
    );
  });

  it('refuses a folder it cannot create or read', async () => {
    await assert.rejects(
      DiskSnapshotStore.open('/dev/null/sbkit'),
      (error: unknown) =>
        error instanceof SnapshotStoreError && error.code === 'SBKIT_SNAPSHOT_STORE_STORAGE' && /\/dev\/null\/sbkit/.test(error.message),
    );
  });

  it('serves a version it cannot write, says so, and writes it with the next publication that can', async () => {
    const dir = await folder();
    const { store, history, log } = await start(dir);
    const s1 = await store.publish(history, V1);
    // The folder gone and a file in its place: every write fails (ENOTDIR), as on a disk that failed.
    await rm(dir, { recursive: true });
    await writeFile(dir, '');
    const s2 = await store.publish(history, V2);
    assert.equal(history.current().id, s2.id, 'fresh data is served all the same');
    assert.match(
      log.join('\n'),
      new RegExp(`version ${s2.id} is served but could not be kept in .*after a restart, clients holding it get the whole list`),
    );
    await rm(dir);
    await DiskSnapshotStore.open(dir);
    const s3 = await store.publish(history, V3);
    const again = await start(dir);
    assert.deepEqual(again.history.keptIds(), [s1.id, s2.id, s3.id]);
  });

  it(
    'leaves a loadable history when killed (SIGKILL) at random moments while it publishes, some in the middle of a write',
    { timeout: 120_000 },
    async (t) => {
      const dir = await folder();
      // Versions a publication was started of, and the empty list every history starts with.
      const announced = new Set([new ListHistory(definition(4), { keep: 4 }).current().id]);
      let finished = 0;
      let midWrite = 0;
      let round = 0;
      // ROUNDS kills at random moments; then, while none has cut a file's write short, kills aimed at the
      // moment a temporary file appears, a bounded number of times.
      for (; round < ROUNDS || (midWrite === 0 && round < MAX_ROUNDS); round++) {
        const moment = round < ROUNDS ? 'random' : 'in a write';
        const { published, started } = await publishUntilKilled(dir, round, 1 + Math.floor(Math.random() * 3), moment);
        for (const id of started) announced.add(id);
        finished += published.length;
        if ((await readdir(dir)).some((name) => name.includes('.tmp-'))) midWrite++;
        const { history, log, restored, store } = await start(dir, 4);
        await store.close();
        assert.deepEqual(damageReports(log), [], 'a kill never damages a file');
        if (finished === 0) continue;
        assert.deepEqual(restored, ['test-4b']);
        assert.ok(announced.has(history.current().id), 'the current version is one that was published');
        for (const id of history.keptIds()) assert.ok(announced.has(id));
        // The newest publication that finished is kept (it may be the current one, or the next may have been written).
        if (published.length > 0) assert.ok(history.keptIds().includes(published.at(-1)!));
        for (const id of history.keptIds().slice(0, -1)) assert.equal(history.updateFor(versionAt(id), NO_LIMITS).partial, true);
        assert.deepEqual(
          (await readdir(dir)).filter((name) => name.includes('.tmp-')),
          [],
          'leftovers removed',
        );
        assert.ok((await readdir(dir)).length <= 4 + 1, 'at most keep versions and the index, once restored');
      }
      t.diagnostic(`${finished} publications finished; ${midWrite} of ${round} kills cut a file's write short`);
      assert.ok(finished > 0, 'publications finished before the kills');
      assert.ok(midWrite > 0, `none of ${round} kills landed while a file was being written`);
    },
  );

  it('a restored current version has the checksum of its served hashes', async () => {
    const dir = await folder();
    const first = await start(dir);
    const published = await first.store.publish(first.history, V2);
    const { history } = await start(dir);
    assert.deepEqual(history.current().checksum, published.checksum);
    assert.deepEqual(checksumOf(history.current().served(), nodeSha256), published.checksum);
  });
});

/** Kills of the publishing process at random moments; then more, up to MAX_ROUNDS, until one has landed in the middle of a write. */
const ROUNDS = 8;
const MAX_ROUNDS = 16;
// The modules in the form this test runs in, for its child: compiled by scripts/test.mjs (.js), or from source under tsx.
const STORE = import.meta.resolve('../../../src/server/lists/disk-snapshot-store.ts');
const HISTORY = import.meta.resolve('../../../src/server/lists/list-history.ts');
const SNAPSHOT = import.meta.resolve('../../../src/server/lists/snapshot.ts');
const LOADER = STORE.endsWith('.ts') ? ['--import', 'tsx'] : [];

/**
 * A child process that restores the history in `dir` and publishes new content (100 000 full hashes,
 * 3.2 MB) in a loop, saying on stdout which version it starts and which it finished; killed with
 * SIGKILL during its publication number `killAt` (1-based): a random 0 to 60 ms after it started it, so
 * that most kills land in its sorting or writing, or as soon as a temporary file of it appears.
 */
async function publishUntilKilled(
  dir: string,
  round: number,
  killAt: number,
  moment: 'random' | 'in a write',
): Promise<{ started: string[]; published: string[] }> {
  const code = `
    import { randomBytes } from 'node:crypto';
    const { DiskSnapshotStore } = await import(${JSON.stringify(STORE)});
    const { ListHistory } = await import(${JSON.stringify(HISTORY)});
    const { Snapshot } = await import(${JSON.stringify(SNAPSHOT)});
    const definition = { name: 'test-4b', hashLength: 4, threatTypes: ['MALWARE'], likelySafeTypes: [], description: 'test list' };
    const store = await DiskSnapshotStore.open(process.env.SBKIT_TEST_DIR);
    const history = new ListHistory(definition, { keep: 4 });
    await store.follow([history]);
    for (;;) {
      const hashes = randomBytes(32 * 100000);
      process.stdout.write('start ' + Snapshot.of(definition, hashes, 0).id + '\\n');
      const published = await store.publish(history, hashes);
      process.stdout.write('done ' + published.id + '\\n');
    }
  `;
  const child = spawn(process.execPath, [...LOADER, '--input-type=module', '-e', code], {
    env: { ...process.env, SBKIT_TEST_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const starts = () => out.split('\n').filter((line) => line.startsWith('start ')).length;
  const watcher = watch(dir);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the publisher did not reach its publication ${killAt} (round ${round}): ${err}`)),
        20_000,
      );
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (moment === 'random') {
        const reached = () => {
          if (starts() < killAt) return;
          child.stdout.off('data', reached);
          setTimeout(done, Math.random() * 60);
        };
        child.stdout.on('data', reached);
      } else {
        watcher.on('change', (_event, name) => {
          if (starts() >= killAt && String(name).includes('.tmp-')) done();
        });
      }
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`the publisher exited (round ${round}): ${err}`));
      });
    });
  } finally {
    watcher.close();
  }
  child.kill('SIGKILL');
  await exited;
  const lines = out.split('\n');
  const ids = (tag: string) => lines.filter((line) => line.startsWith(`${tag} `)).map((line) => line.slice(tag.length + 1));
  return { started: ids('start'), published: ids('done') };
}
