import type { ClientEvent } from '../client/options.ts';
import type { CliIo } from './io.ts';

/**
 * What the library tells about the local database, on standard error, for every command that opens
 * it: damaged files, dropped lists, request schedules that could not be saved. Nothing goes silently.
 * Update rounds and failed updates are the commands' own to report.
 */
export function reportDatabaseEvent(io: CliIo, event: ClientEvent): void {
  const message = databaseEventMessage(event);
  if (message !== undefined) io.err(`sbkit: ${message}\n`);
}

/** What {@link reportDatabaseEvent} says of `event`; undefined for the events it leaves to the commands. */
export function databaseEventMessage(event: ClientEvent): string | undefined {
  if (event.type === 'damaged-file' || event.type === 'state-not-saved') return event.error.message;
  if (event.type === 'list-dropped') return `dropped list ${event.list}: ${event.error.message}`;
  return undefined;
}
