import { Command } from 'commander';
import { reportDatabaseEvent } from './client-events.ts';
import { addClientFlags, type ClientFlags, clientOptions } from './client-options.ts';
import { EXIT, exitStatusOf, type CliIo, type ExitStatus, UsageError } from './io.ts';

interface UpdateFlags extends ClientFlags {
  json?: boolean;
}

export function updateCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('update')
    .description(
      "bring the local lists up to date, as far as the server's waits and back-off allow; " +
        'exit 0 when done or nothing is due yet, 2 when an update failed or is backing off, 4 for a list the server does not publish',
    )
    .option('--json', 'print JSON');
  addClientFlags(command);
  return command.action(async (flags: UpdateFlags) => {
    const options = clientOptions(flags);
    if (flags.data === undefined) throw new UsageError('update needs --data <dir>, to keep the lists somewhere');
    if (options.protocol !== 'v5') options.mode = 'local';
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
    const iso = (moment: number | undefined) => (moment === undefined ? null : new Date(moment).toISOString());
    const codeAndMessage = (error: { code: string; message: string }) => ({ code: error.code, message: error.message });
    const report = {
      updated: summary.updated,
      failed: summary.failed.map((f) => ({ list: f.list, error: codeAndMessage(f.error) })),
      notServed: summary.notServed,
      error: summary.error === undefined ? null : codeAndMessage(summary.error),
      deferred: summary.deferred === undefined ? null : { reason: summary.deferred.reason, until: iso(summary.deferred.until) },
      backoffUntil: iso(summary.backoffUntil),
      nextUpdateAt: iso(summary.nextUpdateAt),
    };
    if (flags.json === true) {
      io.out(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      // Dropped lists were reported on standard error as they were dropped (reportDatabaseEvent).
      if (summary.updated.length > 0) io.out(`updated: ${summary.updated.join(', ')}\n`);
      // Default lists the server lacks are no error, but worth a line; lists named that it lacks are the error.
      if (summary.notServed.length > 0 && summary.error?.code !== 'SBKIT_UNKNOWN_LIST')
        io.err(`sbkit update: not published by the server, not kept: ${summary.notServed.join(', ')}\n`);
      if (summary.error !== undefined) io.err(`sbkit update: ${summary.error.message}\n`);
      else if (summary.deferred?.reason === 'backoff')
        io.err(
          `sbkit update: backing off after ${failures} failed update${failures === 1 ? '' : 's'} until ${report.deferred!.until}; nothing was asked\n`,
        );
      else if (summary.deferred?.reason === 'retry-after')
        io.err(`sbkit update: the server asked to wait until ${report.deferred!.until}; nothing was asked\n`);
      else if (summary.deferred !== undefined) io.out(`nothing to update yet: every list is within the wait the server asked for\n`);
      io.out(`next update: ${report.nextUpdateAt}\n`);
    }
    if (summary.error !== undefined) setExit(exitStatusOf(summary.error));
    else {
      const held = summary.backoffUntil !== undefined || summary.deferred?.reason === 'retry-after';
      setExit(summary.failed.length > 0 || held ? EXIT.FAILED : EXIT.SAFE);
    }
  });
}
