// The flags of `sbkit serve` and `sbkit relay` that set deadlines and connection caps
// (server/http/http-limits.ts), checked against the bounds of the configuration's `http` section.

import type { Command } from 'commander';
import { ConfigError } from '../server/config/config-error.ts';
import { HTTP_LIMIT_FIELDS, type HttpLimitField, parseHttpLimitsConfig } from '../server/http/http-limits-config.ts';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../server/http/http-limits.ts';
import { UsageError } from './io.ts';

interface LimitFlag {
  /** The flag as commander reads it, and the key of its value. */
  flag: string;
  key: string;
  field: HttpLimitField;
  help: string;
}

const seconds = (ms: number) => ms / 1000;

const FLAGS: readonly LimitFlag[] = [
  {
    flag: '--headers-timeout <seconds>',
    key: 'headersTimeout',
    field: 'headersTimeoutSeconds',
    help: `longest a request's line and headers may take to arrive (default ${seconds(DEFAULT_HTTP_LIMITS.headersTimeoutMs)})`,
  },
  {
    flag: '--request-timeout <seconds>',
    key: 'requestTimeout',
    field: 'requestTimeoutSeconds',
    help: `longest a whole request, headers and body, may take to arrive (default ${seconds(DEFAULT_HTTP_LIMITS.requestTimeoutMs)})`,
  },
  {
    flag: '--keep-alive-timeout <seconds>',
    key: 'keepAliveTimeout',
    field: 'keepAliveTimeoutSeconds',
    help: `how long a connection waits for its next request (default ${seconds(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs)}); behind a load balancer, more than its idle timeout`,
  },
  {
    flag: '--idle-timeout <seconds>',
    key: 'idleTimeout',
    field: 'idleTimeoutSeconds',
    help: `a connection on which nothing moves either way for this long is closed (default ${seconds(DEFAULT_HTTP_LIMITS.idleTimeoutMs)})`,
  },
  {
    flag: '--max-connections <count>',
    key: 'maxConnections',
    field: 'maxConnections',
    help: `open connections at most (default ${DEFAULT_HTTP_LIMITS.maxConnections})`,
  },
  {
    flag: '--max-connections-per-address <count>',
    key: 'maxConnectionsPerAddress',
    field: 'maxConnectionsPerAddress',
    help: `open connections of one client address (IPv6: one /64) at most; trusted proxies and relays are not capped (default ${DEFAULT_HTTP_LIMITS.maxConnectionsPerAddress})`,
  },
];

/** Adds the flags to `command`. */
export function withHttpLimitFlags(command: Command): Command {
  for (const { flag, help } of FLAGS) command.option(flag, help);
  return command;
}

/**
 * The limits the flags set (the others come from a configuration or the defaults).
 *
 * @throws UsageError naming a flag out of its bounds.
 */
export function httpLimitFlags(flags: object): Partial<HttpLimits> {
  const limits: Partial<HttpLimits> = {};
  for (const { flag, key, field } of FLAGS) {
    const text = (flags as Record<string, unknown>)[key];
    if (typeof text !== 'string') continue;
    const { min, max, seconds: inSeconds } = HTTP_LIMIT_FIELDS[field];
    try {
      Object.assign(limits, parseHttpLimitsConfig({ [field]: text.trim() === '' ? NaN : Number(text) }, ''));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const kind = inSeconds ? 'a number of seconds' : 'a whole number';
      throw new UsageError(`${flag.split(' ')[0]} must be ${kind} from ${min} to ${max}, not "${text}"`);
    }
  }
  return limits;
}
