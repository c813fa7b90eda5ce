// Keys and tokens from the environment, so that they stay off the command line that `ps` shows
// (docs/configuration.md#keys-and-tokens): NAME holds the secret itself, NAME_FILE the path of a file
// that holds it (server/operator/secret-file.ts). A flag wins over both, and both over the configuration file;
// what loses is not read. Messages name the variable and the path, never the secret.

import { readSecretFile } from '../server/operator/secret-file.ts';
import { UsageError } from './io.ts';

/** The variables of each secret; each has a `_FILE` twin. */
export const SECRET_VARIABLES = {
  /** The client commands' API key (`--key`). */
  apiKey: 'SBKIT_API_KEY',
  /** `sbkit serve --upstream`'s key (`--upstream-key`). */
  upstreamKey: 'SBKIT_UPSTREAM_KEY',
  /** `sbkit serve`'s admin token (the configuration's `adminToken`). */
  adminToken: 'SBKIT_ADMIN_TOKEN',
} as const;

/** A secret found in the environment, and where, in words for messages: `SBKIT_ADMIN_TOKEN_FILE (/run/secrets/admin-token)`. */
export interface SecretFound {
  value: string;
  origin: string;
}

/**
 * The secret `variable` or its `_FILE` twin gives; undefined when neither is set (an empty variable is
 * not set). UsageError when both are set, or when the file cannot be read, is empty or is not one line.
 */
export function secretFromEnvironment(variable: string): SecretFound | undefined {
  const fileVariable = `${variable}_FILE`;
  const value = process.env[variable] ?? '';
  const path = process.env[fileVariable] ?? '';
  if (value !== '' && path !== '') throw new UsageError(`${variable} and ${fileVariable} are both set: set one of them`);
  if (value !== '') return { value, origin: variable };
  if (path === '') return undefined;
  const read = readSecretFile(path);
  if ('problem' in read) throw new UsageError(`${fileVariable} names ${path}, which ${read.problem}`);
  return { value: read.secret, origin: `${fileVariable} (${path})` };
}
