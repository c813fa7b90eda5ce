/** Where a command writes; the real process streams in use, strings in tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** Exit statuses of the Go reference client, which scripts around Safe Browsing already know. */
export const EXIT = { SAFE: 0, UNSAFE: 1, FAILED: 2, INVALID_INPUT: 4 } as const;
export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];
