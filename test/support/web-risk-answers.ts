// Web Risk answers as Google's Node client (@google-cloud/web-risk) gives them, read back for tests:
// bytes as Buffers or base64, int64s as strings or numbers, and the checksum a client verifies.

import { createHash } from 'node:crypto';

/** A Rice coding as the client decoded it (int64s may come as strings or numbers), for the codec. */
export function riceOf(
  rice: { firstValue?: unknown; riceParameter?: number | null; entryCount?: number | null; encodedData?: unknown } | null | undefined,
) {
  return {
    firstValue: BigInt((rice?.firstValue as string | number | undefined) ?? 0),
    riceParameter: rice?.riceParameter ?? 0,
    numEntries: rice?.entryCount ?? 0,
    encodedData: bytesOf(rice?.encodedData ?? ''),
  };
}

/** SHA-256 of 4-byte prefixes, sorted and concatenated: the checksum of a list that holds them. */
export function sha256Of(prefixes: readonly number[]): Buffer {
  const bytes = Buffer.alloc(prefixes.length * 4);
  prefixes.forEach((prefix, i) => bytes.writeUInt32BE(prefix, i * 4));
  return createHash('sha256').update(bytes).digest();
}

/** A bytes field as the client gives it: a Buffer, or base64 text. */
export function bytesOf(value: unknown): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.from(value as Uint8Array);
}
