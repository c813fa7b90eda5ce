import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { platform } from 'node:os';
import { dirname } from 'node:path';

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
    const handle = await open(temp, 'w');
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
