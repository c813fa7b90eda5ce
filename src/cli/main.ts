import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.ts';
import { checkCommand } from './check.ts';
import { expressionsCommand } from './expressions.ts';
import { listsCommand } from './lists.ts';
import { relayCommand } from './relay.ts';
import { serveCommand } from './serve.ts';
import { statusCommand } from './status.ts';
import { updateCommand } from './update.ts';
import { EXIT, exitStatusOf, processIo, type CliIo, type ExitStatus } from './io.ts';

/** Set to any value but 0 to get the stack of an unexpected error, for a bug report. */
export const DEBUG_VARIABLE = 'SBKIT_DEBUG';

function buildProgram(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const program = new Command('sbkit')
    .description('Safe Browsing toolkit: check URLs, inspect expressions, run a v5/v4 server')
    .version(VERSION)
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError()
    .exitOverride();
  program.addCommand(checkCommand(io, setExit));
  program.addCommand(expressionsCommand(io, setExit));
  program.addCommand(updateCommand(io, setExit));
  program.addCommand(listsCommand(io, setExit));
  program.addCommand(serveCommand(io, setExit));
  program.addCommand(statusCommand(io, setExit));
  program.addCommand(relayCommand(io, setExit));
  for (const command of program.commands) {
    command.configureOutput({ writeOut: io.out, writeErr: io.err }).showHelpAfterError().exitOverride();
  }
  return program;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** Runs the CLI on argv and returns the exit status instead of exiting, so tests can drive it. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  let status: number = EXIT.SAFE;
  const program = buildProgram(io, (s) => {
    status = s;
  });
  try {
    await program.parseAsync(argv);
    return status;
  } catch (err) {
    // Flags that cannot work, options the client refuses, a bad configuration: invalid input, in one line.
    if (exitStatusOf(err) === EXIT.INVALID_INPUT) {
      io.err(`sbkit: ${oneLine((err as Error).message)}\n`);
      return EXIT.INVALID_INPUT;
    }
    if (err instanceof CommanderError) {
      // Help and --version end in a CommanderError with exit code 0; usage mistakes are invalid input.
      return err.exitCode === 0 ? EXIT.SAFE : EXIT.INVALID_INPUT;
    }
    // Anything else is a failure to check, never a verdict: 1 would tell a script "unsafe".
    const debug = (process.env[DEBUG_VARIABLE] ?? '') !== '' && process.env[DEBUG_VARIABLE] !== '0';
    if (debug) io.err(`sbkit: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    else io.err(`sbkit: ${oneLine(err instanceof Error ? err.message : String(err))} (${DEBUG_VARIABLE}=1 shows where)\n`);
    return EXIT.FAILED;
  }
}
