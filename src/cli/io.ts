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

/** Exit statuses of the Go reference client, which scripts around Safe Browsing already know. */
export const EXIT = { SAFE: 0, UNSAFE: 1, FAILED: 2, INVALID_INPUT: 4 } as const;
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/** A command line that cannot be run as written; main prints it and exits with INVALID_INPUT. */
export class UsageError extends Error {
  /** Always `"UsageError"`, as logs and stack traces show it. */
  override readonly name = 'UsageError';
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
