import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DatabaseFileError, DatabaseStorageError, LocalDatabase } from '../../src/store/database.ts';
import { checksumOf, HashList, type SortedHashes } from '../../src/store/hash-list.ts';
import { nodeSha256 } from '../../src/url/hash.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-db-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const listOf = (name: string, version: Buffer, hashes: SortedHashes) =>
  HashList.fromSorted(name, version, hashes, checksumOf(hashes, nodeSha256));
const prefixes = listOf('se-4b', Buffer.from([0, 1, 2]), { width: 4, values: Uint32Array.of(1, 0x80000000, 0xffffffff) });
const fullHashes = listOf('gc-32b', Buffer.from('state-from-v4'), {
  width: 32,
  bytes: Buffer.concat([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]),
});

async function reopen(): Promise<{ db: LocalDatabase; damaged: DatabaseFileError[] }> {
  const damaged: DatabaseFileError[] = [];
  const db = await LocalDatabase.open(dir, { onDamaged: (e) => damaged.push(e) });
  return { db, damaged };
}

describe('LocalDatabase', () => {
  it('stores lists of every width and loads them back, version and checksum included', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1_700_000_000_000);
    await db.save(fullHashes, 1_700_000_000_500);
    const { db: again, damaged } = await reopen();
    assert.deepEqual(damaged, []);
    const se = again.get('se-4b')!;
    assert.deepEqual(se.list.sortedHashes(), prefixes.sortedHashes());
    assert.deepEqual(Buffer.from(se.list.version), Buffer.from([0, 1, 2]));
    assert.deepEqual(Buffer.from(se.list.checksum), Buffer.from(prefixes.checksum));
    assert.equal(se.updatedAt, 1_700_000_000_000);
    assert.deepEqual(again.get('gc-32b')!.list.sortedHashes(), fullHashes.sortedHashes());
    assert.deepEqual(
      again.all().map((s) => s.list.name),
      ['gc-32b', 'se-4b'],
    );
  });

  it('drops a file whose hashes were damaged, and says so', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    await db.save(fullHashes, 2);
    const file = join(dir, 'se-4b.sbl');
    const bytes = await readFile(file);
    bytes[bytes.length - 1]! ^= 0x01;
    await writeFile(file, bytes);
    const { db: again, damaged } = await reopen();
    assert.equal(again.get('se-4b'), undefined);
    assert.ok(again.get('gc-32b'));
    assert.equal(damaged.length, 1);
    assert.match(damaged[0]!.message, /se-4b\.sbl was not loaded \(checksum mismatch\)/);
    assert.deepEqual((await readdir(dir)).sort(), ['gc-32b.sbl']);
  });

  it('drops a file whose version bytes were damaged', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    const file = join(dir, 'se-4b.sbl');
    const bytes = await readFile(file);
    bytes[66]! ^= 0x01; // a byte of the version, right after the 65-byte header
    await writeFile(file, bytes);
    const { db: again, damaged } = await reopen();
    assert.equal(again.get('se-4b'), undefined);
    assert.match(damaged[0]!.message, /header digest mismatch/);
  });

  it('starts despite a folder where a list file should be', async () => {
    await mkdir(join(dir, 'x.sbl'), { recursive: true });
    const { db, damaged } = await reopen();
    assert.deepEqual([db.all(), damaged], [[], []]);
  });

  it('keeps small client state beside the lists', async () => {
    const db = await LocalDatabase.open(dir);
    assert.equal(await db.readState(), undefined);
    await db.writeState({ next: 5 });
    assert.deepEqual(await (await reopen()).db.readState(), { next: 5 });
  });

  it('reports client state that is not JSON, rather than taking it for none', async () => {
    await writeFile(join(dir, 'client-state.json'), '{"next": ');
    const db = await LocalDatabase.open(dir);
    await assert.rejects(
      db.readState(),
      (err) => err instanceof DatabaseFileError && /client-state\.json was not loaded \(not JSON\); it is ignored/.test(err.message),
    );
  });

  it(
    'reports a FIFO or a link to /dev/zero in place of the client state, rather than wait on it or read it for ever',
    { timeout: 5000 },
    async () => {
      const state = join(dir, 'client-state.json');
      execFileSync('mkfifo', [state]);
      const db = await LocalDatabase.open(dir);
      await assert.rejects(
        db.readState(),
        (err) => err instanceof DatabaseFileError && /client-state\.json .*not a regular file/.test(err.message),
      );
      await rm(state);
      await symlink('/dev/zero', state);
      await assert.rejects(
        db.readState(),
        (err) => err instanceof DatabaseFileError && /client-state\.json .*symbolic link/.test(err.message),
      );
    },
  );

  it('fails a write it cannot make with DatabaseStorageError, keeping the old list and leaving no temporary file', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a folder');
    const next = listOf('se-4b', Buffer.from('v9'), { width: 4, values: Uint32Array.of(7) });
    await assert.rejects(
      db.save(next, 2),
      (err) => err instanceof DatabaseStorageError && /local database .*: cannot save list se-4b \(ENOTDIR/.test(err.message),
    );
    await assert.rejects(
      db.writeState({}),
      (err) => err instanceof DatabaseStorageError && /cannot save the client state/.test(err.message),
    );
    assert.deepEqual(db.get('se-4b')!.list.sortedHashes(), prefixes.sortedHashes());
  });

  it('says which folder it cannot open', async () => {
    await writeFile(join(dir, 'file'), '');
    await assert.rejects(
      LocalDatabase.open(join(dir, 'file', 'db')),
      (err) =>
        err instanceof DatabaseStorageError &&
        /local database .*file\/db: cannot create, read or write the folder \(ENOTDIR/.test(err.message),
    );
  });

  it('opened read-only, reports damaged files and leftovers but changes nothing, and refuses writes', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    await writeFile(join(dir, 'junk.sbl'), 'hello');
    await writeFile(join(dir, 'se-4b.sbl.tmp-0123456789abcdef'), 'half a file');
    const before = (await readdir(dir)).sort();
    const damaged: DatabaseFileError[] = [];
    const readOnly = await LocalDatabase.open(dir, { readOnly: true, onDamaged: (e) => damaged.push(e) });
    assert.equal(damaged.length, 1);
    assert.ok(readOnly.get('se-4b'));
    await assert.rejects(readOnly.save(prefixes, 2), /opened read-only/);
    await assert.rejects(readOnly.writeState({}), /opened read-only/);
    await assert.rejects(readOnly.drop('se-4b'), /opened read-only/);
    assert.deepEqual((await readdir(dir)).sort(), before);
  });

  it('opened read-only, takes a folder that does not exist for an empty database and does not create it', async () => {
    const missing = join(dir, 'missing');
    const db = await LocalDatabase.open(missing, { readOnly: true });
    assert.deepEqual(db.all(), []);
    assert.deepEqual(await readdir(dir), []);
  });

  it('drops truncated files and files that are not list files', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    const file = join(dir, 'se-4b.sbl');
    await writeFile(file, (await readFile(file)).subarray(0, 70));
    await writeFile(join(dir, 'junk.sbl'), 'hello');
    const { db: again, damaged } = await reopen();
    assert.equal(again.all().length, 0);
    assert.equal(damaged.length, 2);
  });

  it('ignores the leftovers of a write interrupted before its rename', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    await writeFile(join(dir, 'se-4b.sbl.tmp-0123456789abcdef'), 'half a file');
    const { db: again, damaged } = await reopen();
    assert.deepEqual(damaged, []);
    assert.deepEqual(again.get('se-4b')!.list.sortedHashes(), prefixes.sortedHashes());
    assert.deepEqual(await readdir(dir), ['se-4b.sbl']);
  });

  it('replaces a list atomically and forgets dropped lists', async () => {
    const db = await LocalDatabase.open(dir);
    await db.save(prefixes, 1);
    const next = listOf('se-4b', Buffer.from('v9'), { width: 4, values: Uint32Array.of(7) });
    await db.save(next, 2);
    assert.deepEqual((await reopen()).db.get('se-4b')!.list.sortedHashes(), next.sortedHashes());
    await db.drop('se-4b');
    assert.equal((await reopen()).db.get('se-4b'), undefined);
  });

  it('refuses list names that could leave the folder', async () => {
    const db = await LocalDatabase.open(dir);
    const hostile = HashList.empty('../../etc/passwd', 4);
    await assert.rejects(db.save(hostile, 1), RangeError);
    assert.deepEqual(await readdir(dir), []);
  });
});
