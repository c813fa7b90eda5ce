import { Command } from 'commander';
import { reportDatabaseEvent } from './client-events.ts';
import { addClientFlags, type ClientFlags, clientOptions } from './client-options.ts';
import { type CliIo, type ExitStatus, UsageError } from './io.ts';
import { formatTable } from './terminal.ts';

interface ListsFlags extends ClientFlags {
  json?: boolean;
}

/** `sbkit lists`: what the local database holds; no network, and the folder is left as it is (damaged files are only reported). */
export function listsCommand(io: CliIo, _setExit: (status: ExitStatus) => void): Command {
  const command = new Command('lists')
    .description('show the lists in the local database: name, version, entries, checksum, last update')
    .option('--json', 'print JSON');
  addClientFlags(command);
  return command.action(async (flags: ListsFlags) => {
    if (flags.data === undefined) throw new UsageError('lists needs --data <dir>, the local database to show');
    const options = clientOptions(flags);
    if (options.protocol === 'v4') options.mode = 'local';
    const { SafeBrowsingClient } = await import('../client/safe-browsing-client.ts');
    const client = new SafeBrowsingClient({ ...options, readOnly: true, onEvent: (event) => reportDatabaseEvent(io, event) });
    await client.open();
    const lists = client.listInfo();
    await client.close();
    if (flags.json === true) {
      io.out(
        `${JSON.stringify(
          lists.map((l) => ({ ...l, updatedAt: l.updatedAt === undefined ? null : new Date(l.updatedAt).toISOString() })),
          null,
          2,
        )}\n`,
      );
      return;
    }
    const rows = lists.map((l) => [
      l.name,
      l.version === '' ? '-' : l.version,
      String(l.entries),
      l.checksum.slice(0, 16),
      l.updatedAt === undefined ? 'never' : new Date(l.updatedAt).toISOString(),
    ]);
    io.out(formatTable(['list', 'version', 'entries', 'checksum', 'last update'], rows));
  });
}
