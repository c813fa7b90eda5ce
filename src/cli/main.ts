import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.ts';
import { checkCommand } from './check.ts';
import { expressionsCommand } from './expressions.ts';
import { listsCommand } from './lists.ts';
import { relayCommand } from './relay.ts';
import { serveCommand } from './serve.ts';
import { statusCommand } from './status.ts';
import { updateCommand } from './update.ts';
import { EXIT, processIo, type CliIo, type ExitStatus, UsageError } from './io.ts';

export function buildProgram(io: CliIo, setExit: (status: ExitStatus) => void): Command {
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
    if (err instanceof UsageError) {
      io.err(`sbkit: ${err.message}\n`);
      return EXIT.INVALID_INPUT;
    }
    if (err instanceof CommanderError) {
      // Help and --version end in a CommanderError with exit code 0; usage mistakes are invalid input.
      return err.exitCode === 0 ? EXIT.SAFE : EXIT.INVALID_INPUT;
    }
    throw err;
  }
}
