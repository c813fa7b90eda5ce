import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import fc from 'fast-check';
import { allocBytes, bytesOfLatin1, latin1OfBytes, utf8ByteString } from '../../src/url/byte-string.ts';

const MODULE = new URL('../../src/url/byte-string.ts', import.meta.url).pathname;

describe('byte strings', () => {
  it('turn bytes into a byte string and back, any range, any offset', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(), (bytes, a, b) => {
        const view = new Uint8Array(bytes.buffer, 0, bytes.length);
        const start = bytes.length === 0 ? 0 : a % bytes.length;
        const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
        const text = latin1OfBytes(view, start, end);
        assert.equal(text, Buffer.from(bytes.subarray(start, end)).toString('latin1'));
        assert.deepEqual(bytesOfLatin1(text), bytes.subarray(start, end));
      }),
    );
  });

  it('give the UTF-8 bytes of any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        assert.equal(utf8ByteString(text), Buffer.from(text, 'utf8').toString('latin1'));
      }),
    );
  });

  it('allocate room of the size asked', () => {
    assert.equal(allocBytes(17).length, 17);
  });

  it('work the same without Node’s Buffer, as in a browser', async () => {
    // A child process without the Buffer global runs the plain JavaScript branches, checked against
    // expectations. The module is bundled first: on Node 24 a TypeScript loader runs in the child's own
    // thread and needs Buffer itself.
    const dir = await mkdtemp(join(tmpdir(), 'sbkit-byte-string-'));
    try {
      const bundle = join(dir, 'byte-string.mjs');
      await build({ entryPoints: [MODULE], bundle: true, format: 'esm', platform: 'neutral', outfile: bundle, logLevel: 'silent' });
      const script = `
        delete globalThis.Buffer;
        const { latin1OfBytes, utf8ByteString, bytesOfLatin1, allocBytes } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
        const big = new Uint8Array(20000).map((_, i) => i % 256);
        const out = [latin1OfBytes(new Uint8Array([104, 105, 255]), 1), utf8ByteString('ü€'), [...bytesOfLatin1('\\xff\\x00')].join(','),
          latin1OfBytes(big).length, latin1OfBytes(big).charCodeAt(19999), allocBytes(3).constructor.name];
        console.log(JSON.stringify(out));`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), ['i\xff', '\xc3\xbc\xe2\x82\xac', '255,0', 20000, 19999 % 256, 'Uint8Array']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
