import { type ErrorCode, errorCode, SbkitError } from '../sbkit-error.ts';

/** Where a command reads and writes; the real process streams in use, strings in tests. */
export interface CliIo {
  /** Writes to standard output. */
  out: (text: string) => void;
  /** Writes to standard error. */
  err: (text: string) => void;
  stdin: NodeJS.ReadableStream;
  /** Whether standard output is a terminal that wants colour. */
  color: boolean;
  /** Whether standard error is a terminal (for progress bars). */
  interactive: boolean;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  stdin: process.stdin,
  color: process.stdout.isTTY === true && process.env['NO_COLOR'] === undefined,
  interactive: process.stderr.isTTY === true,
};

/**
 * Exit statuses of the Go reference client, which scripts around Safe Browsing already know: bits, ORed
 * together by commands that check many URLs (3: some unsafe and some not checked).
 */
export const EXIT = { SAFE: 0, UNSAFE: 1, FAILED: 2, INVALID_INPUT: 4 } as const;
/** One of {@link EXIT}'s statuses, or several ORed together. */
export type ExitStatus = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;

/**
 * Codes of errors the person running the command can fix in what they typed or configured: flags, client
 * options, a configuration file, a URL, a list the server does not have, an address of Redis (docs/errors.md).
 */
const INVALID_INPUT =
  /^SBKIT_(USAGE|CLIENT_OPTION|CONFIG|INVALID_URL|UNKNOWN_LIST|REDIS_CONNECTION_INVALID_URL|SNAPSHOT_STORE_INVALID_URL)(_|$)/;

/** The exit status an error ends a command with, from its code: 4 for invalid input, 2 for any other failure (never 1, "unsafe"). */
export function exitStatusOf(error: unknown): ExitStatus {
  return error instanceof SbkitError && INVALID_INPUT.test(error.code) ? EXIT.INVALID_INPUT : EXIT.FAILED;
}

/** A command line that cannot be run as written; main prints it and exits with INVALID_INPUT. */
export class UsageError extends SbkitError {
  /** Always `"UsageError"`, as logs and stack traces show it. */
  override readonly name = 'UsageError';
  /** Always `SBKIT_USAGE`. */
  override readonly code = errorCode('USAGE');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'USAGE'>[] = [errorCode('USAGE')];
}

/** Waits for Ctrl-C or a termination signal. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
