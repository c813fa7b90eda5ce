import { Command, Option } from 'commander';
import { UsageError } from './io.ts';
import { GOOGLE_SERVER, type Mode, type SafeBrowsingClientOptions } from '../client/options.ts';

/** `sbkit serve` listens here by default, so the other commands find the embedded server with no flags. */
export const EMBEDDED_SERVER = 'http://127.0.0.1:8080';

export interface ClientFlags {
  server?: string;
  key?: string;
  mode?: Mode;
  protocol?: 'v5' | 'v4';
  data?: string;
  lists?: string;
  timeout?: string;
}

/** The flags every client command shares. */
export function addClientFlags(command: Command): Command {
  return command
    .option('--server <url>', `Safe Browsing server (default: ${EMBEDDED_SERVER}, or Google's when --key is given)`)
    .option('--key <key>', 'API key, sent as key=')
    .addOption(new Option('--protocol <version>', 'protocol to speak').choices(['v5', 'v4']).default('v5'))
    .option('--data <dir>', 'folder of the local database (kept between runs)')
    .option('--lists <names>', 'comma-separated threat lists (default: se-4b,mw-4b,uws-4b,uwsa-4b,pha-4b)')
    .option('--timeout <ms>', 'timeout of each request in milliseconds', '10000');
}

/** Client options from the flags: a key alone means Google's server, nothing at all the embedded one. */
export function clientOptions(flags: ClientFlags): SafeBrowsingClientOptions {
  const timeoutMs = Number(flags.timeout ?? 10_000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new UsageError(`--timeout must be a positive number of milliseconds, not "${flags.timeout}"`);
  const options: SafeBrowsingClientOptions = {
    server: flags.server ?? (flags.key === undefined ? EMBEDDED_SERVER : GOOGLE_SERVER),
    protocol: flags.protocol ?? 'v5',
    timeoutMs,
  };
  if (flags.key !== undefined) options.apiKey = flags.key;
  if (flags.data !== undefined) options.dataDir = flags.data;
  if (flags.mode !== undefined) options.mode = flags.mode;
  // Every name counts, empty ones too: the client refuses those as it refuses any other that is no list name.
  if (flags.lists !== undefined) options.lists = flags.lists.split(',').map((name) => name.trim());
  return options;
}
