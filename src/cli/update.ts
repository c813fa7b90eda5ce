import { Command } from 'commander';
import { reportDatabaseEvent } from './client-events.ts';
import { addClientFlags, type ClientFlags, clientOptions } from './client-options.ts';
import { EXIT, type CliIo, type ExitStatus, UsageError } from './io.ts';

interface UpdateFlags extends ClientFlags {
  json?: boolean;
}

export function updateCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('update')
    .description(
      "bring the local lists up to date, as far as the server's waits and back-off allow (RF-3, RF-4); exit 2 when an update failed or is backing off",
    )
    .option('--json', 'print JSON');
  addClientFlags(command);
  return command.action(async (flags: UpdateFlags) => {
    const options = clientOptions(flags);
    if (flags.data === undefined) throw new UsageError('update needs --data <dir>, to keep the lists somewhere');
    if (options.protocol === 'v4') options.mode = 'local';
    const { SafeBrowsingClient } = await import('../client/safe-browsing-client.ts');
    // A progress bar only for people at a terminal, and its code only then.
    const bar =
      io.interactive && flags.json !== true
        ? new (await import('cli-progress')).SingleBar({ format: 'updating lists [{bar}] {value}/{total} {lists}', stream: process.stderr })
        : undefined;
    const done = new Set<string>();
    const client = new SafeBrowsingClient({
      ...options,
      onEvent: (event) => {
        reportDatabaseEvent(io, event);
        if (event.type !== 'update' || bar === undefined) return;
        for (const name of event.lists) done.add(name);
        bar.update(done.size, { lists: event.lists.join(' ') });
      },
    });
    bar?.start(client.listInfo().length, 0, { lists: '' });
    let summary;
    try {
      summary = await client.update().finally(() => bar?.stop());
    } finally {
      await client.close();
    }
    const failures = client.stats().consecutiveUpdateFailures;
    const backoffUntil = summary.backoffUntil === undefined ? undefined : new Date(summary.backoffUntil).toISOString();
    const report = {
      updated: summary.updated,
      failed: summary.failed.map((f) => ({ list: f.list, error: f.error.message })),
      error: summary.error?.message,
      backoffUntil: backoffUntil ?? null,
      nextUpdateAt: new Date(summary.nextUpdateAt).toISOString(),
    };
    if (flags.json === true) {
      io.out(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      // Dropped lists were reported on standard error as they were dropped (reportDatabaseEvent).
      if (summary.updated.length > 0) io.out(`updated: ${summary.updated.join(', ')}\n`);
      else if (summary.error === undefined && backoffUntil === undefined)
        io.out('nothing to update yet: every list is within its minimum wait\n');
      if (summary.error !== undefined) io.err(`sbkit update: ${summary.error.message}\n`);
      else if (backoffUntil !== undefined) {
        io.err(
          `sbkit update: backing off after ${failures} failed update${failures === 1 ? '' : 's'} until ${backoffUntil} (RF-4); nothing was asked\n`,
        );
      }
      io.out(`next update: ${report.nextUpdateAt}\n`);
    }
    setExit(summary.error !== undefined || summary.failed.length > 0 || backoffUntil !== undefined ? EXIT.FAILED : EXIT.SAFE);
  });
}
