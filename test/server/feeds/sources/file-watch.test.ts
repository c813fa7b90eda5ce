import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../../../src/time/clock.ts';
import { FileWatch } from '../../../../src/server/feeds/sources/file-watch.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-file-watch-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A clock whose timers run only when it is advanced past them. */
function manualClock(): Clock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimeout: (run, ms) => {
      timers.set(++next, { at: now + ms, run });
      return next;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
    },
    pending: () => timers.size,
  };
}

/** Waits, in short real steps and at most `ms`, for `condition`; the stats of the watch are real I/O. */
async function until(condition: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** Lets the stats under way finish (real I/O), without any timer of the watch running. */
const settleIo = () => new Promise((resolve) => setTimeout(resolve, 50));

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
    assert.ok(await until(() => changes.length > 0), 'the change is reported');
    assert.ok(Date.now() - started < 2000, `reported after ${Date.now() - started} ms`);
    assert.deepEqual(changes, [file]);
    watch.close();
  });

  it('finds a change with the stat poll alone, and waits until the file stands still', async () => {
    const file = join(dir, 'polled.txt');
    await writeFile(file, 'a.example/\n');
    const clock = manualClock();
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { clock, watch: false, pollMs: 1000, settleMs: 250 });
    await watch.ready;
    clock.advance(1000);
    await settleIo();
    assert.deepEqual(changes, [], 'an unchanged file is not reported');

    await appendFile(file, 'half.exa');
    clock.advance(1000);
    await settleIo();
    assert.deepEqual(changes, [], 'a change just seen waits for the file to stand still');
    await appendFile(file, 'mple/\n');
    clock.advance(250);
    await settleIo();
    assert.deepEqual(changes, [], 'a file still growing is not reported');
    clock.advance(250);
    assert.ok(await until(() => changes.length === 1), 'the file is reported once it stood still');
    clock.advance(5000);
    await settleIo();
    assert.deepEqual(changes, [file], 'once only');
    watch.close();
    assert.equal(clock.pending(), 0, 'close leaves no timer');
  });

  it('turns a burst of writes into one report', async () => {
    const file = join(dir, 'burst.txt');
    await writeFile(file, '');
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { pollMs: 60_000 });
    await watch.ready;
    for (let i = 0; i < 20; i++) await appendFile(file, `e${i}.example/\n`);
    assert.ok(await until(() => changes.length > 0));
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(changes, [file]);
    watch.close();
  });

  it('reports a file that appears, and one that goes away', async () => {
    const file = join(dir, 'later.txt');
    const clock = manualClock();
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { clock, watch: false, pollMs: 1000, settleMs: 250 });
    await watch.ready;
    await writeFile(file, 'a.example/\n');
    clock.advance(1000);
    await settleIo();
    clock.advance(250);
    assert.ok(await until(() => changes.length === 1));
    await rm(file);
    clock.advance(1000);
    await settleIo();
    clock.advance(250);
    assert.ok(await until(() => changes.length === 2));
    watch.close();
  });

  it('says nothing after close', async () => {
    const file = join(dir, 'closed.txt');
    await writeFile(file, 'a.example/\n');
    const changes: string[] = [];
    const watch = new FileWatch([file], (path) => changes.push(path), { pollMs: 100, settleMs: 20 });
    await watch.ready;
    watch.close();
    await writeFile(file, 'b.example/\n');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(changes, []);
  });
});
