import { Command, Option } from 'commander';
import { UsageError } from './io.ts';
import { SECRET_VARIABLES, secretFromEnvironment } from './secret-variables.ts';
import { GOOGLE_SERVER, type Mode, type SafeBrowsingClientOptions, WEB_RISK_SERVER } from '../client/options.ts';

/** `sbkit serve` listens here by default, so the other commands find the embedded server with no flags. */
export const EMBEDDED_SERVER = 'http://127.0.0.1:8080';

/** The flags of the local database, which every client command shares. */
export interface DatabaseFlags {
  protocol?: 'v5' | 'v4' | 'webrisk';
  data?: string;
  lists?: string;
}

/** The flags of the commands that talk to a server too. */
export interface ClientFlags extends DatabaseFlags {
  server?: string;
  key?: string;
  mode?: Mode;
  timeout?: string;
}

const { apiKey } = SECRET_VARIABLES;

/** The local database's flags: all that `sbkit lists`, which asks no server, takes. */
export function addDatabaseFlags(command: Command): Command {
  return command
    .addOption(
      new Option('--protocol <version>', "protocol to speak: Safe Browsing v5 or v4, or Google's Web Risk API")
        .choices(['v5', 'v4', 'webrisk'])
        .default('v5'),
    )
    .option('--data <dir>', 'folder of the local database (kept between runs)')
    .option('--lists <names>', 'comma-separated threat lists (default: se-4b,mw-4b,uws-4b,uwsa-4b,pha-4b; se-4b,mw-4b,uws-4b for webrisk)');
}

/** The flags every command that talks to a server shares, the local database's included. */
export function addClientFlags(command: Command): Command {
  command
    .option(
      '--server <url>',
      `Safe Browsing server (default: ${EMBEDDED_SERVER}, or Google's when a key is given: ${WEB_RISK_SERVER} with --protocol webrisk)`,
    )
    .option('--key <key>', `API key, sent as key=; or from ${apiKey} or ${apiKey}_FILE, out of sight of ps`);
  return addDatabaseFlags(command)
    .option('--timeout <ms>', 'timeout of each request in milliseconds', '10000')
    .addHelpText(
      'after',
      `\nEnvironment:\n  ${apiKey}       the API key, when --key is not given\n  ${apiKey}_FILE  a file that holds it (e.g. /run/secrets/sbkit-api-key); not with ${apiKey}\n`,
    );
}

/** Client options from the local database's flags alone: no server is named, and no key read. */
export function databaseOptions(flags: DatabaseFlags): SafeBrowsingClientOptions {
  const options: SafeBrowsingClientOptions = { protocol: flags.protocol ?? 'v5' };
  if (flags.data !== undefined) options.dataDir = flags.data;
  // Every name counts, empty ones too: the client refuses those as it refuses any other that is no list name.
  if (flags.lists !== undefined) options.lists = flags.lists.split(',').map((name) => name.trim());
  return options;
}

/**
 * Client options from the flags. The key is `--key`'s, else SBKIT_API_KEY's (or its file's); a key
 * alone, from either, means Google's server (Web Risk's for `--protocol webrisk`), and nothing at all
 * the embedded one.
 */
export function clientOptions(flags: ClientFlags): SafeBrowsingClientOptions {
  const timeoutMs = Number(flags.timeout ?? 10_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError(`--timeout must be a positive number of milliseconds, not "${flags.timeout}"`);
  const key = flags.key ?? secretFromEnvironment(apiKey)?.value;
  const database = databaseOptions(flags);
  const google = database.protocol === 'webrisk' ? WEB_RISK_SERVER : GOOGLE_SERVER;
  const options: SafeBrowsingClientOptions = {
    ...database,
    server: flags.server ?? (key === undefined ? EMBEDDED_SERVER : google),
    timeoutMs,
  };
  if (key !== undefined) options.apiKey = key;
  if (flags.mode !== undefined) options.mode = flags.mode;
  return options;
}
