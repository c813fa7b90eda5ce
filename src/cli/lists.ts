import { Command } from 'commander';
import { reportDatabaseEvent } from './client-events.ts';
import { addDatabaseFlags, databaseOptions, type DatabaseFlags } from './client-options.ts';
import { type CliIo, type ExitStatus, UsageError } from './io.ts';
import { formatTable } from './terminal.ts';

interface ListsFlags extends DatabaseFlags {
  json?: boolean;
}

/** Why `dir` cannot be shown: it is no folder, or no `sbkit update` ever wrote there (an empty table would say nothing). */
async function databaseProblem(dir: string): Promise<string | undefined> {
  const { LocalDatabase } = await import('../store/database.ts');
  const state = await LocalDatabase.inspect(dir);
  const make = `"sbkit update --data ${dir}" makes one`;
  if (state === 'missing') return `--data ${dir}: no such folder, so no local database; ${make}`;
  if (state === 'not-a-folder') return `--data ${dir} is a file, not the folder of a local database`;
  if (state === 'empty') return `--data ${dir} holds no local database (no list file, no client-state.json); ${make}`;
  return undefined;
}

/**
 * `sbkit lists`: what the local database holds; no network (so no --server or --key), and the folder is
 * left as it is (damaged files are only reported).
 */
export function listsCommand(io: CliIo, _setExit: (status: ExitStatus) => void): Command {
  const command = new Command('lists')
    .description('show the lists in the local database: name, version, entries, checksum, last update')
    .option('--json', 'print JSON');
  addDatabaseFlags(command);
  return command.action(async (flags: ListsFlags) => {
    if (flags.data === undefined) throw new UsageError('lists needs --data <dir>, the local database to show');
    const problem = await databaseProblem(flags.data);
    if (problem !== undefined) throw new UsageError(problem);
    const options = databaseOptions(flags);
    if (options.protocol !== 'v5') options.mode = 'local';
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
