// The feed workers: a feed hashed in parts on worker threads gives what the single-thread parser gives
// for the same text (property test over small feeds cut into many parts); the errors of the work, and
// of a worker that ends or hangs, arrive typed; a worker that ended is replaced.

import assert from 'node:assert/strict';
import { extname } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { SourceConfig } from '../../../../src/server/config/config.ts';
import { FeedEntryLimitError, FeedFormatError, FeedWorkerError } from '../../../../src/server/feeds/feed-error.ts';
import { EventLoopTurns } from '../../../../src/time/event-loop-turns.ts';
import type { FeedFormat } from '../../../../src/server/feeds/formats/feed-formats.ts';
import { type FeedBytes, FeedBytesWriter } from '../../../../src/server/feeds/sources/feed-bytes.ts';
import { FeedWorkerPool } from '../../../../src/server/feeds/sources/feed-worker-pool.ts';
import { SourceError } from '../../../../src/server/feeds/sources/source-error.ts';
import { hashSourceBytes, hashSourceText } from '../../../../src/server/feeds/sources/source-text.ts';
import { FakeClock } from '../../../support/fake-clock.ts';
import { within } from '../../../support/waiting.ts';

const pool = new FeedWorkerPool({ size: 2 });
after(() => pool.close());

function source(format: FeedFormat): SourceConfig {
  return { kind: 'file', path: '/feeds/test.txt', format, csvColumn: undefined } as SourceConfig;
}

/** `text` as a read gives it: UTF-8 bytes arrived in chunks of `chunkSize`, in a feed's shared buffer. */
function bytesOf(text: string | Uint8Array, chunkSize = 7): FeedBytes {
  const all = Buffer.from(text);
  const writer = new FeedBytesWriter(all.length);
  for (let at = 0; at < all.length; at += chunkSize) writer.write(all.subarray(at, at + chunkSize));
  return writer.finish();
}

/** Lines of every kind a feed holds: good URLs and hosts, repeats, comments, blanks, junk, CRLFs, byte order marks. */
const line = fc.oneof(
  fc.constantFrom(
    'http://a.example/',
    'https://B.example/x/../y?q=1',
    'a.example',
    '0.0.0.0 bad.example other.example',
    '127.0.0.1 localhost',
    '# a comment',
    '',
    '   ',
    'not a url',
    'http://10.0.0.1/p',
    '\ufeffhttp://bom.example/',
    'http://c.example/\r',
    'ftp://d.example/',
    'http://[2001:db8::1]/',
  ),
  fc.string({ maxLength: 12 }),
  fc.domain().map((host) => `http://${host}/path`),
);

describe('feed workers', () => {
  it('give what the single-thread parser gives, whatever the parts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 40 }),
        fc.constantFrom<FeedFormat>('urls', 'hosts', 'expressions', 'domains'),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        async (lines, format, bom, minPartBytes) => {
          const text = `${bom ? '\ufeff' : ''}${lines.join('\n')}`;
          const decoded = new TextDecoder().decode(Buffer.from(text));
          const settle = (work: Promise<unknown>) =>
            work.then(
              (value) => ({ value }),
              (error: unknown) => ({ error: error instanceof SourceError ? error.message : error }),
            );
          const alone = await settle(hashSourceText(source(format), decoded, 100_000, new EventLoopTurns()));
          const inParts = await settle(hashSourceBytes(source(format), bytesOf(text), 100_000, pool, minPartBytes));
          assert.deepEqual(inParts, alone);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('cuts a feed into one part per worker and numbers its bad lines in the whole feed', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 500 === 499 ? `bad line ${i + 1}` : `http://h${i}.example/`));
    const hashed = await hashSourceBytes(source('urls'), bytesOf(lines.join('\n'), 4096), 100_000, pool, 1000);
    assert.deepEqual(
      hashed.badLines.map((bad) => bad.line),
      [500, 1000, 1500, 2000],
    );
    assert.equal(hashed.fullHashes.length, 1996 * 32);
  });

  it('reads a part of megabytes a slice at a time as the single-thread parser reads it whole', async () => {
    // 3 MB in one part: the worker decodes it in slices of 1 MB (feed-part.ts), whose cuts must neither
    // number bad lines anew nor drop a byte order mark that starts a line.
    const lines = Array.from({ length: 80_000 }, (_, i) =>
      i % 1999 === 0 ? `bad line ${i + 1}` : i % 2003 === 0 ? `\ufeffhttp://bom${i}.example/` : `http://h${i % 50_000}.example/p`,
    );
    const text = lines.join('\n');
    const alone = await hashSourceText(source('urls'), text, 100_000, new EventLoopTurns());
    const inSlices = await hashSourceBytes(source('urls'), bytesOf(text, 65_536), 100_000, pool, 64 << 20);
    assert.deepEqual(inSlices, alone);
    assert.ok(alone.badLines.some((bad) => bad.line > 70_000));
  });

  it('refuses a feed with more entries than allowed over all its parts, as its source', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `http://h${i}.example/`).join('\n');
    await assert.rejects(hashSourceBytes(source('urls'), bytesOf(text), 99, pool, 100), (error: unknown) => {
      assert.ok(error instanceof SourceError);
      assert.equal(error.failure, 'too-many-entries');
      return true;
    });
    const hashed = await hashSourceBytes(source('urls'), bytesOf(text), 100, pool, 100);
    assert.equal(hashed.entryCount, 100);
  });

  it("makes the work's errors again as their own classes", async () => {
    const csv = (text: string) => ({
      kind: 'hash' as const,
      bytes: Buffer.from(text),
      format: 'csv' as const,
      csvColumn: undefined,
      maxEntries: 10,
    });
    await assert.rejects(pool.hash(csv('1,http://a.example/\n')), FeedFormatError);
    await assert.rejects(pool.hash(csv(`url\n${'http://a.example/\n'.repeat(11)}`)), (error: unknown) => {
      assert.ok(error instanceof FeedEntryLimitError);
      assert.equal(error.maxEntries, 10);
      return true;
    });
  });

  it("tells a bug in the work by the error's class and message on one line, without its stack", async () => {
    // Runs that are no arrays: the merge throws a TypeError, which no feed can cause.
    await assert.rejects(pool.merge([null as unknown as Uint8Array], true), (error: unknown) => {
      assert.ok(error instanceof FeedWorkerError);
      assert.equal(error.failure, 'failed');
      assert.match(error.message, /^a feed worker failed: TypeError: Cannot read properties of null/);
      // A stack would show where sbkit is installed, over many lines of the log and of /admin/reload's answer.
      assert.doesNotMatch(error.message, /\n|\bat |feed-part|full-hashes/);
      return true;
    });
  });

  it('fails the task of a worker that ends as crashed, and starts another for the next', async () => {
    // Each worker of this pool ends at its first task, as one past its memory limits or killed would.
    const ending = new FeedWorkerPool({ size: 1, entry: new URL(`./ending-worker${extname(import.meta.url)}`, import.meta.url) });
    const task = () => ({
      kind: 'hash' as const,
      bytes: Buffer.from('http://a.example/\n'),
      format: 'urls' as const,
      csvColumn: undefined,
      maxEntries: 10,
    });
    const crashed = (error: unknown) => error instanceof FeedWorkerError && error.code === 'SBKIT_FEED_WORKER_CRASHED';
    await assert.rejects(within(10_000, 'the crashed task', ending.hash(task())), crashed);
    // A pool that kept its dead worker would leave this task waiting for ever: a new worker takes it, and ends too.
    await assert.rejects(within(10_000, 'the next task', ending.hash(task())), crashed);
  });

  it('stops a worker that gives no answer within its bound, failing its task as a timeout', async () => {
    const clock = new FakeClock();
    const slow = new FeedWorkerPool({ size: 1, clock, taskTimeoutMs: 1000 });
    try {
      const task = slow.hash({
        kind: 'hash',
        bytes: Buffer.from('http://a.example/\n'),
        format: 'urls',
        csvColumn: undefined,
        maxEntries: 10,
      });
      // The bound runs out before the worker (still starting) can answer.
      clock.advance(1000);
      await assert.rejects(task, (error: unknown) => error instanceof FeedWorkerError && error.failure === 'timeout');
    } finally {
      await slow.close();
    }
  });
});
