import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { platform } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Files that survive a crash whole or not at all: written to a temporary name beside the target, synced,
 * renamed over the target, and the folder synced, so that a crash (or kill -9, or a power cut) leaves
 * either the old file or the new one, never a mix. The local database and the server's list history
 * (`--data`) both write this way.
 */

/** Marks the temporary name of a file being written: what a crash before the rename leaves behind. */
const TEMP_MARK = '.tmp-';
/** A temporary file's name: its target, the mark, and the 16 hex digits writeFileDurably adds. */
const TEMPORARY = new RegExp(`^(.+)${TEMP_MARK.replaceAll('.', '\\.')}[0-9a-f]{16}$`);

/** The name of the file a temporary file was to replace, or undefined when `name` is no temporary file's. */
export function targetOfTemporary(name: string): string | undefined {
  return TEMPORARY.exec(name)?.[1];
}

/**
 * Replaces `target` with `data` (its parts one after the other, when it is an array) durably. Rejects
 * with the file system's error (ENOSPC, EIO, ENOTDIR…), the old file then as it was and no temporary
 * file left behind.
 */
export async function writeFileDurably(target: string, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
  const temp = `${target}${TEMP_MARK}${randomBytes(8).toString('hex')}`;
  try {
    // Created, never opened if it exists: a link put in its place is not written through. The rename
    // then replaces whatever is at `target` (a link too) rather than writing into what it points to.
    const handle = await open(temp, 'wx');
    try {
      // Each writeFile on an open handle goes on from where the previous one ended.
      for (const part of data instanceof Uint8Array ? [data] : data) await handle.writeFile(part);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await syncDirectory(dirname(target));
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Creates `directory` and its missing parents, as `mkdir -p` does. Not Node's `mkdir(…, { recursive:
 * true })`: that retries for ever, at full speed, where creating an entry fails with ENOENT under a
 * parent that exists (/proc, some FUSE and network file systems), and its loop cannot be interrupted.
 * Here each folder is tried at most twice, and the file system's error is the answer.
 */
export async function makeFolder(directory: string): Promise<void> {
  try {
    await mkdir(directory);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await stat(directory)).isDirectory()) return;
    const parent = dirname(directory);
    if (code !== 'ENOENT' || parent === directory) throw error;
  }
  await makeFolder(dirname(directory));
  try {
    await mkdir(directory);
  } catch (error) {
    // Made meanwhile by another process: as good.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(directory)).isDirectory()) throw error;
  }
}

/**
 * Creates `directory` (makeFolder) and proves a file can be created in it, so that a folder the process
 * may not write (permissions, a read-only or special file system) is found when a store opens, not at its
 * first write. The probe has a temporary file's name: one a crash leaves behind is cleared as such.
 */
export async function makeWritableFolder(directory: string): Promise<void> {
  await makeFolder(directory);
  const probe = join(directory, `write-check${TEMP_MARK}${randomBytes(8).toString('hex')}`);
  await (await open(probe, 'wx')).close();
  await rm(probe, { force: true });
}

/** Makes renames and removals in `directory` durable. Windows cannot open a folder for syncing; NTFS journals renames. */
export async function syncDirectory(directory: string): Promise<void> {
  if (platform() === 'win32') return;
  const dir = await open(directory, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
