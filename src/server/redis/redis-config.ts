// The configuration file's `redis` section (docs/configuration.md "Redis"): a URL of any form, or an
// object naming a Sentinel set or a Cluster; either way checked here, so that a bad address stops the
// start with the field named rather than at the first connection.

import { ConfigError } from '../config/config-error.ts';
import { expectArrayOf, expectKnownFields, expectObject, expectString, fieldOf, optionalNumber } from '../config/config-fields.ts';
import { readRedisAddress, type RedisServers, type RedisTarget } from './redis-address.ts';

/** Where the instances share their lists, searches, limits and keys; `--redis` and `--redis-prefix` override it. */
export interface RedisConfig {
  target: RedisTarget;
  /** Starts every key; DEFAULT_KEY_PREFIX when not given. */
  keyPrefix?: string;
}

const OBJECT_FIELDS = ['url', 'sentinels', 'name', 'cluster', 'username', 'password', 'db', 'keyPrefix'] as const;

/** The section `value` at `field`, checked; undefined when the file has none. */
export function parseRedisConfig(value: unknown, field: string): RedisConfig | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { target: checked(value, field) };
  const object = expectObject(value, field);
  expectKnownFields(object, OBJECT_FIELDS, field);
  const text = (key: string) => (object[key] === undefined ? undefined : expectString(object[key], fieldOf(field, key)));
  const hosts = (key: string) => (object[key] === undefined ? undefined : expectArrayOf(object[key], fieldOf(field, key), expectString));
  const servers: RedisServers = {};
  for (const key of ['url', 'name', 'username', 'password'] as const) {
    const given = text(key);
    if (given !== undefined) servers[key] = given;
  }
  for (const key of ['sentinels', 'cluster'] as const) {
    const given = hosts(key);
    if (given !== undefined) servers[key] = given;
  }
  const db = optionalNumber(object, 'db', field, { min: 0, max: 15, integer: true });
  if (db !== undefined) servers.db = db;
  const keyPrefix = text('keyPrefix');
  return { target: checked(servers, field), ...(keyPrefix === undefined ? {} : { keyPrefix }) };
}

function checked<T extends RedisTarget>(target: T, field: string): T {
  const address = readRedisAddress(target);
  if ('problem' in address) throw new ConfigError(field, address.problem);
  return target;
}
