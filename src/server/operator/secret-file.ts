// A key or a token read from a file of its own, so that it shows neither on a command line (`ps` shows
// those to every user of the machine) nor in a unit file or a configuration that others may read:
// systemd hands a service its credentials as such files (LoadCredential=, in $CREDENTIALS_DIRECTORY), and
// container runtimes their secrets (/run/secrets/NAME). The file holds the secret alone; the one line
// break that editors and `echo` put at its end is not part of it. What is wrong with a file is said
// without ever quoting what it holds.

import { readFileSync, statSync } from 'node:fs';

/** A key or a token is tens of characters: a file far larger than any is the wrong file. */
const MAX_SECRET_FILE_BYTES = 16 * 1024;

/** Node's message for a failed file operation, without the path it repeats (`ENOENT: no such file or directory`). */
function reason(error: unknown): string {
  return (error as Error).message.replace(/, \w+ '.*'$/, '');
}

/** The key or token `path` holds, or what makes it hold none: missing, no file, too large, blank, or more than one line. */
export function readSecretFile(path: string): { secret: string } | { problem: string } {
  let text: string;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return { problem: 'is not a file' };
    if (stats.size > MAX_SECRET_FILE_BYTES) {
      return { problem: `holds ${stats.size} bytes, more than the ${MAX_SECRET_FILE_BYTES} a key or a token may take` };
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problem: `cannot be read (${reason(error)})` };
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret.trim() === '') return { problem: 'is empty' };
  if (/[\r\n]/.test(secret)) return { problem: 'holds more than one line, and a key or a token is one line' };
  return { secret };
}
