import { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { SafeBrowsingClient } from '../client/safe-browsing-client.ts';
import { addClientFlags, type ClientFlags, clientOptions } from './client-options.ts';
import { EXIT, type CliIo, type ExitStatus } from './io.ts';

interface UpdateFlags extends ClientFlags {
  json?: boolean;
}

export function updateCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('update')
    .description('bring the local lists up to date, as far as the server\'s waits and back-off allow (RF-3, RF-4)')
    .option('--json', 'print JSON');
  addClientFlags(command);
  return command.action(async (flags: UpdateFlags) => {
    const options = clientOptions(flags);
    if (flags.data === undefined) {
      io.err('sbkit update: --data <dir> is needed, to keep the lists somewhere\n');
      setExit(EXIT.INVALID_INPUT);
      return;
    }
    if (options.protocol === 'v4') options.mode = 'local';
    const bar = io.interactive && flags.json !== true ? new SingleBar({ format: 'updating lists [{bar}] {value}/{total} {lists}', stream: process.stderr }) : undefined;
    const done = new Set<string>();
    const client = new SafeBrowsingClient({
      ...options,
      onEvent: (event) => {
        if (event.type !== 'update' || bar === undefined) return;
        for (const name of event.lists) done.add(name);
        bar.update(done.size, { lists: event.lists.join(' ') });
      },
    });
    bar?.start(client.listInfo().length, 0, { lists: '' });
    const summary = await client.update().finally(() => bar?.stop());
    await client.close();
    const report = {
      updated: summary.updated,
      failed: summary.failed.map((f) => ({ list: f.list, error: f.error.message })),
      error: summary.error?.message,
      nextUpdateAt: new Date(summary.nextUpdateAt).toISOString(),
    };
    if (flags.json === true) {
      io.out(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      if (summary.updated.length > 0) io.out(`updated: ${summary.updated.join(', ')}\n`);
      else if (summary.error === undefined) io.out('nothing to update yet: every list is within its minimum wait\n');
      for (const failure of report.failed) io.out(`dropped: ${failure.list} (${failure.error}); it will be fetched again in full\n`);
      if (summary.error !== undefined) io.err(`sbkit update: ${summary.error.message}\n`);
      io.out(`next update: ${report.nextUpdateAt}\n`);
    }
    setExit(summary.error !== undefined || summary.failed.length > 0 ? EXIT.FAILED : EXIT.SAFE);
  });
}
