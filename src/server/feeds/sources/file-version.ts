import { stat } from 'node:fs/promises';

// A reload re-reads only the sources that changed (issue 29): a file whose version is the one its copy
// was read at is not read again. The version is what the file system says of it without reading it; it
// names the content only when no later write could leave it as it is ("racy git"): file times come from
// a coarse clock (a kernel tick, or whole seconds on some file systems), so two writes of the same size
// within one tick look alike, but a write after the moment of the stat gets a later time.

/** Longer than any file system's time step: a file changed within this of its stat is read anyway. */
const RACY_MS = 2000;

/**
 * The version of the file at `path`: device, inode, size, and its modification and change times in
 * nanoseconds. undefined when it cannot name the content: the file changed within RACY_MS before `now`
 * (the system's wall time, which file times are in), or it cannot be looked at (its read says why).
 */
export async function fileVersion(path: string, now: number): Promise<string | undefined> {
  let stats;
  try {
    stats = await stat(path, { bigint: true });
  } catch {
    return undefined;
  }
  if (now - Number(stats.mtimeMs) < RACY_MS || now - Number(stats.ctimeMs) < RACY_MS) return undefined;
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}
