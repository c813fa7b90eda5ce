import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.ts';

/** Exit statuses of the Go reference client, which scripts around Safe Browsing already know. */
export const EXIT = { SAFE: 0, UNSAFE: 1, FAILED: 2, INVALID_INPUT: 4 } as const;

export function buildProgram(): Command {
  const program = new Command('sbkit')
    .description('Safe Browsing toolkit: check URLs, inspect expressions, run a v5/v4 server')
    .version(VERSION)
    .exitOverride();
  return program;
}

/** Runs the CLI on argv and returns the exit status instead of calling process.exit, so tests can drive it. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : EXIT.INVALID_INPUT;
    }
    throw err;
  }
}
