// Reads Firefox's logs while it runs: the MOZ_LOG files (one per process: MOZ_LOG_FILE plus a suffix) and
// Firefox's own stdout/stderr (where browser.safebrowsing.debug's listmanager lines land).
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface LogLine {
  file: string;
  text: string;
}

/** Follows every file in `dir` whose name starts with one of `prefixes`, returning only new whole lines. */
export class LogTail {
  private readonly offsets = new Map<string, number>();
  private readonly partial = new Map<string, string>();
  readonly lines: LogLine[] = [];

  constructor(
    private readonly dir: string,
    private readonly prefixes: readonly string[],
  ) {}

  /** Reads what was appended since the last call; returns the new lines (also kept in `lines`). */
  async poll(): Promise<LogLine[]> {
    const fresh: LogLine[] = [];
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => this.prefixes.some((p) => n.startsWith(p))).sort();
    } catch {
      return fresh;
    }
    for (const name of names) {
      const path = join(this.dir, name);
      const offset = this.offsets.get(name) ?? 0;
      let text: string;
      const handle = await open(path, 'r').catch(() => undefined);
      if (handle === undefined) continue;
      try {
        const { size } = await handle.stat();
        if (size <= offset) continue;
        const buffer = Buffer.alloc(size - offset);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        this.offsets.set(name, offset + bytesRead);
        text = (this.partial.get(name) ?? '') + buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
      const parts = text.split('\n');
      this.partial.set(name, parts.pop() ?? '');
      for (const part of parts) fresh.push({ file: name, text: part.replace(/\r$/, '') });
    }
    this.lines.push(...fresh);
    return fresh;
  }

  /** Also returns the unterminated last lines (once the processes are gone). */
  async flush(): Promise<LogLine[]> {
    const fresh = await this.poll();
    for (const [file, text] of this.partial) {
      if (text !== '') {
        const line = { file, text };
        fresh.push(line);
        this.lines.push(line);
      }
    }
    this.partial.clear();
    return fresh;
  }
}
