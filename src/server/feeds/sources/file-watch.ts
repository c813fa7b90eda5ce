// Noticing that a feed file changed, soon after the write that changed it is complete, and never in
// the middle of one.
//
//   fs.watch on the file's folder ─┐  (the folder, not the file: a write to a temporary file and a
//                                  │   rename replace the file, and a watch on it would lose track)
//   a stat every pollMs ───────────┤  (watches miss events on network and some container file systems)
//                                  ▼
//   stat: size, mtime, ctime, inode ─▶ unlike what was last reported? remember it, look again in settleMs
//                                   ─▶ the same as settleMs ago? the write is done: report the file once
//
// Every change is reported once its size and times have stood still for settleMs: a file renamed into
// place is whole at once and reported after that one wait; one written in place only when its writer
// has paused that long, so that a half-written file is not read (a writer that pauses longer than that
// mid-file is the exception: write to a temporary file and rename). Events in a burst restart the wait,
// which debounces them into one report.

import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type Clock, systemClock } from '../../../time/clock.ts';

export interface FileWatchOptions {
  /** Time for the stat poll and the settle wait; the system's by default. */
  clock?: Clock;
  /** Between two stats of every file, whatever the watches say; 1000 ms by default. */
  pollMs?: number;
  /** How long a file's size and times must stand still before it is reported; 250 ms by default. */
  settleMs?: number;
  /** False: no fs.watch, the stat poll alone (as on a file system whose watches say nothing). */
  watch?: boolean;
}

const DEFAULT_POLL_MS = 1000;
const DEFAULT_SETTLE_MS = 250;

/** What a stat says of a file, as one string: equal strings, unchanged file. `missing` when there is none. */
async function signature(path: string): Promise<string> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return 'missing';
  }
}

interface Watched {
  path: string;
  /** The signature last reported (or found at the start). */
  reported: string | undefined;
  /** The signature found by the last look, while it differs from `reported`. */
  candidate: string | undefined;
  /** The settle timer, while one is set. */
  settle: unknown;
  /** A stat under way: looks do not overlap. */
  looking: boolean;
  /** Another look was asked for while one was under way. */
  again: boolean;
}

/**
 * Watches files and calls `onChange(path)` once for each completed change of one (see the top of this
 * file). `ready` resolves once every file's starting state is known: changes from then on are reported.
 */
export class FileWatch {
  /** Resolves once the starting state of every file is known. */
  readonly ready: Promise<void>;
  private readonly files: Watched[];
  private readonly watchers: FSWatcher[] = [];
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly settleMs: number;
  private pollTimer: unknown;
  private closed = false;

  constructor(
    paths: readonly string[],
    private readonly onChange: (path: string) => void,
    options: FileWatchOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.files = [...new Set(paths)].map((path) => ({
      path,
      reported: undefined,
      candidate: undefined,
      settle: undefined,
      looking: false,
      again: false,
    }));
    this.ready = Promise.all(
      this.files.map(async (file) => {
        file.reported = await signature(file.path);
      }),
    ).then(() => {
      if (this.closed) return;
      if (options.watch !== false) this.watchFolders();
      this.schedulePoll();
    });
  }

  /** Stops watching; no report comes after this. */
  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.splice(0)) watcher.close();
    if (this.pollTimer !== undefined) this.clock.clearTimeout(this.pollTimer);
    for (const file of this.files) if (file.settle !== undefined) this.clock.clearTimeout(file.settle);
  }

  private watchFolders(): void {
    const byFolder = new Map<string, Watched[]>();
    for (const file of this.files) byFolder.set(dirname(file.path), [...(byFolder.get(dirname(file.path)) ?? []), file]);
    for (const [folder, files] of byFolder) {
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, { persistent: false }, (_event, name) => {
          // Some platforms do not say which file: then any of the folder's may have changed.
          for (const file of files) if (name === null || name === basename(file.path)) this.look(file);
        });
      } catch {
        // A folder that cannot be watched (missing, too many watches): the poll still sees its files.
        continue;
      }
      // A watch that fails later leaves the poll to see the folder's files.
      watcher.on('error', () => watcher.close());
      this.watchers.push(watcher);
    }
  }

  private schedulePoll(): void {
    this.pollTimer = this.clock.setTimeout(() => {
      if (this.closed) return;
      for (const file of this.files) if (file.settle === undefined) this.look(file);
      this.schedulePoll();
    }, this.pollMs);
  }

  /** Stats the file and moves it along: unchanged, changed (wait settleMs), or settled (report). */
  private look(file: Watched): void {
    if (this.closed) return;
    if (file.looking) {
      file.again = true;
      return;
    }
    file.looking = true;
    void signature(file.path).then((now) => {
      file.looking = false;
      if (this.closed) return;
      if (file.again) {
        // Something happened during the stat: what it found may already be old.
        file.again = false;
        this.look(file);
        return;
      }
      this.judge(file, now);
    });
  }

  private judge(file: Watched, now: string): void {
    if (file.settle !== undefined) this.clock.clearTimeout(file.settle);
    file.settle = undefined;
    if (now === file.reported) {
      file.candidate = undefined;
      return;
    }
    if (now === file.candidate) {
      file.reported = now;
      file.candidate = undefined;
      this.onChange(file.path);
      return;
    }
    file.candidate = now;
    file.settle = this.clock.setTimeout(() => {
      file.settle = undefined;
      this.look(file);
    }, this.settleMs);
  }
}
