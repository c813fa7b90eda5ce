// A local feed file read straight into its parts (source-reader.ts readFileSource): the parts are the
// file in order, cut only at line ends and never before a byte order mark, with the file's SHA-256;
// what no regular file is (a named pipe) is read whole; a file past the limit is refused.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SourceError } from '../../../../src/server/feeds/sources/source-error.ts';
import { readFileSource } from '../../../../src/server/feeds/sources/source-reader.ts';

const LIMITS = { timeoutMs: 10_000, maxBytes: 1 << 20 };
let dir: string;
before(async () => (dir = await mkdtemp(join(tmpdir(), 'sbkit-source-reader-'))));
after(() => rm(dir, { recursive: true, force: true }));

const line = fc.oneof(
  fc.constantFrom('http://a.example/', '', '\ufeffhttp://bom.example/', '\ufeff', 'http://c.example/\r', 'é'),
  fc.string({ maxLength: 30 }),
);

describe('readFileSource', () => {
  it('reads a file into parts of whole lines, none starting with a byte order mark but the first', async () => {
    const path = join(dir, 'feed.txt');
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 60 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 40 }),
        async (lines, parts, minPartBytes) => {
          const bytes = Buffer.from(lines.join('\n'));
          await writeFile(path, bytes);
          const feed = await readFileSource(path, LIMITS, { parts, minPartBytes });
          assert.deepEqual(Buffer.concat(feed.parts), bytes);
          assert.equal(feed.size, bytes.length);
          assert.equal(feed.digest, createHash('sha256').update(bytes).digest('base64'));
          assert.ok(feed.parts.length <= parts);
          feed.parts.forEach((part, k) => {
            // Each its own ArrayBuffer, which a worker takes whole.
            assert.equal(part.byteLength, part.buffer.byteLength);
            if (k < feed.parts.length - 1) assert.equal(part.at(-1), 0x0a, 'ends with a line feed');
            if (k > 0) assert.notDeepEqual([...part.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'starts with no byte order mark');
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds a cut past a long line, far from where it looked first', async () => {
    const path = join(dir, 'long-line.txt');
    const bytes = Buffer.from(`${'x'.repeat(300_000)}\nhttp://a.example/\n`);
    await writeFile(path, bytes);
    const feed = await readFileSource(path, LIMITS, { parts: 2, minPartBytes: 1 });
    assert.deepEqual(
      feed.parts.map((part) => part.length),
      [300_001, 18],
    );
  });

  it('refuses a file larger than the limit, and reads a named pipe to its end', async () => {
    const big = join(dir, 'big.txt');
    writeFileSync(big, Buffer.alloc(LIMITS.maxBytes + 1, 0x61));
    await assert.rejects(readFileSource(big, LIMITS), (error: unknown) => error instanceof SourceError && error.failure === 'too-large');
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const writing = writeFile(fifo, 'http://a.example/\nhttp://b.example/\n');
    const feed = await readFileSource(fifo, LIMITS, { parts: 2, minPartBytes: 1 });
    await writing;
    assert.equal(Buffer.concat(feed.parts).toString(), 'http://a.example/\nhttp://b.example/\n');
  });
});
