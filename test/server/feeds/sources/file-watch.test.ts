import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FileWatch } from '../../../../src/server/feeds/sources/file-watch.ts';
import { FakeClock } from '../../../support/fake-clock.ts';
import { until } from '../../../support/waiting.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-file-watch-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

// The watch's timers run on a fake clock: what it must not do is shown by moving the clock past the
// moment it would, and its stats (real I/O) are waited for through what they leave behind: a settle
// timer set, a report made. A file's stats run one after another, so a report of a later change also
// says that every look before it is over.

describe('FileWatch', () => {
  it('reports a file replaced by a rename within 2 s, through fs.watch', async () => {
    const file = join(dir, 'renamed.txt');
    await writeFile(file, 'a.example/\n');
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { pollMs: 60_000 });
    await watch.ready;
    const started = Date.now();
    await writeFile(`${file}.tmp`, 'a.example/\nb.example/\n');
    await rename(`${file}.tmp`, file);
    await until(3000, 'the change is reported', () => changes.length > 0);
    assert.ok(Date.now() - started < 2000, `reported after ${Date.now() - started} ms`);
    assert.deepEqual(changes, [file]);
    watch.close();
  });

  it('finds a change with the stat poll alone, and waits until the file stands still', async () => {
    const file = join(dir, 'polled.txt');
    await writeFile(file, 'a.example/\n');
    const clock = new FakeClock(0);
    const changes: string[] = [];
    // A settle wait longer than the poll: moving to the next poll never runs a settle timer just set.
    const watch = new FileWatch([file], (path) => changes.push(path), { clock, watch: false, pollMs: 1000, settleMs: 2500 });
    await watch.ready;
    const settling = () => clock.pending === 2;
    await appendFile(file, 'half.exa');
    clock.advance(1000);
    await until(3000, 'the change is seen: the poll waits for the file to stand still', settling);
    assert.deepEqual(changes, [], 'a change just seen is not reported');
    await appendFile(file, 'mple/\n');
    clock.advance(2500);
    await until(3000, 'still growing: the wait starts again', settling);
    assert.deepEqual(changes, [], 'a file still growing is not reported');
    clock.advance(2500);
    await until(3000, 'the file is reported once it stood still', () => changes.length === 1);
    clock.advance(5000);
    await appendFile(file, 'later.example/\n');
    clock.advance(1000);
    await until(3000, 'a later change is seen, after the looks of the 5 s before it', settling);
    assert.deepEqual(changes, [file], 'the unchanged file, looked at since, was not reported again');
    watch.close();
    assert.equal(clock.pending, 0, 'close leaves no timer');
  });

  it('turns a burst of writes into one report', async () => {
    const file = join(dir, 'burst.txt');
    await writeFile(file, '');
    const clock = new FakeClock(0);
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { clock, pollMs: 60_000, settleMs: 250 });
    await watch.ready;
    for (let i = 0; i < 20; i++) await appendFile(file, `e${i}.example/\n`);
    // The settle wait, a step at a time, until the file has stood still through one.
    await until(3000, 'the burst reported', () => {
      clock.advance(250);
      return changes.length > 0;
    });
    await appendFile(file, 'later.example/\n');
    await until(3000, 'a later write is seen, after every look the burst caused', () => clock.pending === 2);
    assert.deepEqual(changes, [file], 'the burst was reported once');
    watch.close();
  });

  it('reports a file that appears, and one that goes away', async () => {
    const file = join(dir, 'later.txt');
    const clock = new FakeClock(0);
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { clock, watch: false, pollMs: 1000, settleMs: 250 });
    await watch.ready;
    const settling = () => clock.pending === 2;
    await writeFile(file, 'a.example/\n');
    clock.advance(1000);
    await until(3000, 'the new file is seen', settling);
    clock.advance(250);
    await until(3000, 'the new file is reported', () => changes.length === 1);
    await rm(file);
    clock.advance(1000);
    await until(3000, 'the file gone is seen', settling);
    clock.advance(250);
    await until(3000, 'the file gone is reported', () => changes.length === 2);
    watch.close();
  });

  it('says nothing after close', async () => {
    const file = join(dir, 'closed.txt');
    await writeFile(file, 'a.example/\n');
    const clock = new FakeClock(0);
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { clock, pollMs: 100, settleMs: 20 });
    await watch.ready;
    watch.close();
    assert.equal(clock.pending, 0, 'close leaves no timer');
    // A watch of the same file left open is told of the write: by then the closed one would have been.
    const witnessed: string[] = [];
    const witness = new FileWatch([file], (path) => witnessed.push(path), { clock, pollMs: 100, settleMs: 20 });
    await witness.ready;
    await writeFile(file, 'b.example/\n');
    await until(3000, 'the open watch told', () => {
      clock.advance(20);
      return witnessed.length > 0;
    });
    witness.close();
    assert.deepEqual(changes, []);
  });
});
