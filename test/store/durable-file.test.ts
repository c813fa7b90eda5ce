import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { targetOfTemporary, writeFileDurably } from '../../src/store/durable-file.ts';

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
