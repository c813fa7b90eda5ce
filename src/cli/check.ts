import { Command, Option } from 'commander';
import type { CheckFlags } from './check-run.ts';
import { addClientFlags } from './client-options.ts';
import type { CliIo, ExitStatus } from './io.ts';

/** `sbkit check`; the client's code is loaded when the command runs, never for `--help` or other commands. */
export function checkCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('check')
    .description(
      'check URLs against Safe Browsing lists; each is SAFE, UNSAFE, UNKNOWN (not checked: no answer, lists out of date) or INVALID. ' +
        'Exit status: 0 when every URL was checked and is safe, else the sum of 1 (some unsafe), 2 (some not checked), 4 (some invalid)',
    )
    .argument('[urls...]', 'URLs to check')
    .option('--stdin', 'read URLs from standard input, one per line (for thousands, use --mode local --data DIR)')
    .addOption(
      new Option('--mode <mode>', 'check procedure (default: realtime with --data, else nostorage)').choices([
        'realtime',
        'local',
        'nostorage',
      ]),
    )
    .option('--json', 'print JSON')
    .option(
      '--ohttp-relay <url>',
      'send searches through this Oblivious HTTP relay, which hides your address from the server, e.g. http://relay.example/ohttp-relay',
    )
    .option('--ohttp-keys <url|file>', "the gateway's key configuration, e.g. http://127.0.0.1:8080/ohttp-keys");
  addClientFlags(command);
  return command.action(async (urls: string[], flags: CheckFlags) => {
    const { check } = await import('./check-run.ts');
    await check(urls, flags, io, setExit);
  });
}
