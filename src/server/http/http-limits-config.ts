// The `http` section of the server configuration (docs/configuration.md): deadlines and connection caps
// (http-limits.ts) in the units people write them in. `sbkit serve` and `sbkit relay` check their flags
// through the same table, so that a flag and a field have the same bounds.

import { expectKnownFields, expectNumber, expectObject, fieldOf } from '../config/config-fields.ts';
import type { HttpLimits } from './http-limits.ts';

interface Field {
  limit: keyof HttpLimits;
  min: number;
  max: number;
  /** Seconds become milliseconds; counts are whole numbers. */
  seconds: boolean;
}

/** Each field, the limit it sets and its bounds. No deadline can be switched off: that is the attack. */
export const HTTP_LIMIT_FIELDS = {
  headersTimeoutSeconds: { limit: 'headersTimeoutMs', min: 0.1, max: 600, seconds: true },
  requestTimeoutSeconds: { limit: 'requestTimeoutMs', min: 0.1, max: 3600, seconds: true },
  keepAliveTimeoutSeconds: { limit: 'keepAliveTimeoutMs', min: 0.1, max: 3600, seconds: true },
  idleTimeoutSeconds: { limit: 'idleTimeoutMs', min: 0.1, max: 3600, seconds: true },
  maxConnections: { limit: 'maxConnections', min: 1, max: 1_000_000, seconds: false },
  maxConnectionsPerAddress: { limit: 'maxConnectionsPerAddress', min: 1, max: 1_000_000, seconds: false },
  maxConnectionsPerNeighbourhood: { limit: 'maxConnectionsPerNeighbourhood', min: 1, max: 1_000_000, seconds: false },
  minAnswerBytesPerSecond: { limit: 'minAnswerBytesPerSecond', min: 1, max: 1_000_000_000, seconds: false },
} as const satisfies Record<string, Field>;

/** A field of the `http` section. */
export type HttpLimitField = keyof typeof HTTP_LIMIT_FIELDS;

/**
 * The limits the section sets (the others keep their defaults); `field` is where it stands, for errors.
 *
 * @throws ConfigError naming the first bad field.
 */
export function parseHttpLimitsConfig(value: unknown, field: string): Partial<HttpLimits> {
  if (value === undefined) return {};
  const section = expectObject(value, field);
  expectKnownFields(section, Object.keys(HTTP_LIMIT_FIELDS), field);
  const limits: Partial<HttpLimits> = {};
  for (const [key, { limit, min, max, seconds }] of Object.entries(HTTP_LIMIT_FIELDS)) {
    if (section[key] === undefined) continue;
    const number = expectNumber(section[key], fieldOf(field, key), { min, max, integer: !seconds });
    limits[limit] = seconds ? Math.round(number * 1000) : number;
  }
  return limits;
}
