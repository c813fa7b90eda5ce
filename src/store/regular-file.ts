import { constants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';

/**
 * Reading a file of a data folder (`--data`) that someone else may have replaced. Whoever can write the
 * folder can put there a FIFO (an open that waits for a writer for ever), a device or a link to one
 * (/dev/zero: a read that never ends), or a file far larger than sbkit ever writes. So a file is read
 * only when it is a regular file, reached without following a link, and no larger than its bound:
 * looked at with lstat before it is opened (opening some devices does something), opened with
 * O_NOFOLLOW and O_NONBLOCK (a FIFO then opens at once rather than waiting), and looked at again through
 * the open handle (what was looked at first may have been swapped meanwhile). Then exactly its size is
 * read, so a file that grows while it is read cannot make the read longer.
 */

/** Why a file was not read: a link in its place, something that is not a regular file, or too many bytes. */
export type IrregularReason = 'link' | 'not-regular' | 'too-large';

/** A file of a data folder that is not what sbkit writes there; the message names it and what to do. */
export class IrregularFileError extends Error {
  override readonly name = 'IrregularFileError';

  constructor(
    readonly file: string,
    readonly reason: IrregularReason,
    message: string,
  ) {
    super(message);
  }
}

// Windows has neither: a link is then refused by the lstat alone, and a FIFO cannot be made in a folder.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

/**
 * The bytes of `file`; IrregularFileError when it is a link, not a regular file, or larger than
 * `maxBytes`. Rejects with the file system's error otherwise (ENOENT when there is none, EACCES…).
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<Buffer> {
  checkRegular(file, await lstat(file), maxBytes);
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCK);
  } catch (error) {
    // O_NOFOLLOW's answer for a link: one was put in place since the lstat.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw irregular(file, 'link', 'a symbolic link');
    throw error;
  }
  try {
    const stats = await handle.stat();
    checkRegular(file, stats, maxBytes);
    const data = Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < data.length) {
      const { bytesRead } = await handle.read(data, filled, data.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return data.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

function checkRegular(file: string, stats: Stats, maxBytes: number): void {
  if (stats.isSymbolicLink()) throw irregular(file, 'link', 'a symbolic link');
  if (!stats.isFile()) throw irregular(file, 'not-regular', kindOf(stats));
  if (stats.size > maxBytes) {
    throw new IrregularFileError(
      file,
      'too-large',
      `${file} holds ${stats.size} bytes, more than the ${maxBytes} a file of its kind may hold; sbkit wrote no such file: remove it`,
    );
  }
}

function irregular(file: string, reason: IrregularReason, what: string): IrregularFileError {
  return new IrregularFileError(
    file,
    reason,
    `${file} is ${what}, not a regular file; sbkit reads no other kind in its data folder and follows no link there: ` +
      `put the file itself in its place, or remove it`,
  );
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'something else';
}
