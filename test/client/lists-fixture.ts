import { create } from '@bufbuild/protobuf';
import { encodeRice32, encodeRice256 } from '../../src/codec/index.ts';
import { type HashList, HashListSchema } from '../../src/proto/v5.ts';
import { checksumOf } from '../../src/store/hash-list.ts';
import { expressionHashString, nodeSha256, prefix32 } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';

/** Sorted distinct 4-byte prefixes of expressions. */
export function prefixesOf(...expressions: string[]): Uint32Array {
  return Uint32Array.from(new Set(expressions.map((e) => prefix32(expressionHashString(e))))).sort();
}

/** Sorted 32-byte hashes of expressions, concatenated. */
export function fullHashesOf(...expressions: string[]): Uint8Array {
  const hashes = expressions.map((e) => Buffer.from(expressionHashString(e), 'latin1')).sort((a, b) => Buffer.compare(a, b));
  return new Uint8Array(Buffer.concat(hashes));
}

export interface ListMessageOptions {
  partial?: boolean;
  removals?: number[];
  /** The list after the update, for the checksum; by default the additions themselves. */
  after?: Uint32Array;
  checksum?: Uint8Array | null;
  minimumWaitMs?: number;
}

/** A v5 HashList message for 4-byte prefixes, Rice-coded as a server sends it. */
export function prefixList(name: string, version: string, additions: Uint32Array, options: ListMessageOptions = {}): HashList {
  const after = options.after ?? additions;
  const removals = encodeRice32(Uint32Array.from(options.removals ?? []));
  const encoded = encodeRice32(additions);
  return create(HashListSchema, {
    name,
    version: Buffer.from(version),
    partialUpdate: options.partial ?? false,
    compressedAdditions: encoded === undefined ? { case: undefined } : { case: 'additionsFourBytes', value: encoded },
    ...(removals === undefined ? {} : { compressedRemovals: removals }),
    sha256Checksum:
      options.checksum === null ? new Uint8Array(0) : (options.checksum ?? checksumOf({ width: 4, values: after }, nodeSha256)),
    ...(options.minimumWaitMs === undefined ? {} : { minimumWaitDuration: durationFromMs(options.minimumWaitMs) }),
  });
}

/** A v5 HashList message of 32-byte hashes (the global cache). */
export function fullHashList(name: string, version: string, hashes: Uint8Array, minimumWaitMs = 1_800_000): HashList {
  const encoded = encodeRice256(hashes);
  return create(HashListSchema, {
    name,
    version: Buffer.from(version),
    compressedAdditions: encoded === undefined ? { case: undefined } : { case: 'additionsThirtyTwoBytes', value: encoded },
    sha256Checksum: checksumOf({ width: 32, bytes: hashes }, nodeSha256),
    minimumWaitDuration: durationFromMs(minimumWaitMs),
  });
}
