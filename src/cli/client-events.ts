import type { ClientEvent } from '../client/options.ts';
import type { CliIo } from './io.ts';

/**
 * What the library tells about the local database, on standard error, for every command that opens
 * it: damaged files, dropped lists, request schedules that could not be saved. Nothing goes silently.
 * Update rounds and failed updates are the commands' own to report.
 */
export function reportDatabaseEvent(io: CliIo, event: ClientEvent): void {
  if (event.type === 'damaged-file' || event.type === 'state-not-saved') io.err(`sbkit: ${event.error.message}\n`);
  else if (event.type === 'list-dropped') io.err(`sbkit: dropped list ${event.list}: ${event.error.message}\n`);
}
