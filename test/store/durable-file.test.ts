import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeFolder, makeWritableFolder, targetOfTemporary, writeFileDurably } from '../../src/store/durable-file.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-durable-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileDurably', () => {
  it('replaces a file with its parts, one after the other, and leaves nothing else', async () => {
    const file = join(dir, 'a.bin');
    await writeFile(file, 'old content, longer than the new');
    await writeFileDurably(file, [Buffer.from('new '), new Uint8Array([0x41, 0x42]), Buffer.alloc(0), Buffer.from('!')]);
    assert.equal(await readFile(file, 'latin1'), 'new AB!');
    await writeFileDurably(file, Buffer.from('one part'));
    assert.equal(await readFile(file, 'latin1'), 'one part');
    assert.deepEqual(await readdir(dir), ['a.bin']);
  });

  it('rejects with the file system error and leaves the old file and no temporary file', async () => {
    const file = join(dir, 'kept.bin');
    await writeFile(file, 'kept');
    await assert.rejects(writeFileDurably(join(dir, 'missing', 'x.bin'), Buffer.from('x')), { code: 'ENOENT' });
    // A folder in the target's place: the rename fails after the temporary file was written.
    await mkdir(join(dir, 'folder'));
    await assert.rejects(writeFileDurably(join(dir, 'folder'), Buffer.from('x')), { code: 'EISDIR' });
    assert.equal(await readFile(file, 'latin1'), 'kept');
    assert.deepEqual(
      (await readdir(dir)).filter((name) => targetOfTemporary(name) !== undefined),
      [],
    );
  });
});

describe('targetOfTemporary', () => {
  it('names the file a temporary one was to replace', () => {
    assert.equal(targetOfTemporary('se-4b.sbl.tmp-0123456789abcdef'), 'se-4b.sbl');
    assert.equal(targetOfTemporary('se-4b.sbl'), undefined);
  });
});

describe('makeFolder and makeWritableFolder', () => {
  it('create a folder and its missing parents, accept one that exists, and leave nothing in it', async () => {
    const nested = join(dir, 'made', 'of', 'parts');
    await makeWritableFolder(nested);
    await makeFolder(nested);
    await makeWritableFolder(nested);
    assert.deepEqual(await readdir(nested), []);
  });

  it('reject with the file system error where a file stands in the way', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, '');
    await assert.rejects(makeFolder(file), { code: 'EEXIST' });
    await assert.rejects(makeFolder(join(file, 'below')), { code: 'ENOTDIR' });
  });

  // Node's mkdir(…, { recursive: true }) never returns here: mkdir says ENOENT under /proc, which exists.
  it(
    'reject, rather than retry for ever, where a folder cannot be created under a parent that exists',
    { skip: process.platform !== 'linux' },
    async () => {
      await assert.rejects(makeFolder('/proc/sbkit-test/below'), { code: 'ENOENT' });
    },
  );

  it('makeWritableFolder rejects a folder no file can be created in', { skip: process.platform !== 'linux' }, async () => {
    // sysfs: a folder that exists, in which not even root may create a file.
    await assert.rejects(makeWritableFolder('/sys/kernel'), (error: NodeJS.ErrnoException) =>
      ['EACCES', 'EPERM', 'EROFS'].includes(error.code!),
    );
  });
});
