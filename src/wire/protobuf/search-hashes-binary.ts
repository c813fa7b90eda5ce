// The hashes:search answer in binary protobuf, written field by field. It is the response the server
// sends most (every browser lookup that misses its cache), and the reflection-based encoder of
// protobuf-es spends longer on this small message than the rest of the request does. The bytes are the
// ones toBinary writes, field order and packed enums included (test/wire/protobuf/search-hashes-binary.test.ts).

import type { Duration } from '@bufbuild/protobuf/wkt';
import { type FullHash, type FullHash_FullHashDetail as FullHashDetail, type SearchHashesResponse, ThreatType } from '../../proto/v5.ts';

/** SearchHashesResponse as binary protobuf. Messages carrying unknown fields must use toBinary instead. */
export function encodeSearchHashesResponse(message: SearchHashesResponse): Buffer {
  let size = 0;
  for (const fullHash of message.fullHashes) size += delimitedSize(fullHashSize(fullHash));
  if (message.cacheDuration !== undefined) size += delimitedSize(durationSize(message.cacheDuration));
  const out = new Writer(size);
  for (const fullHash of message.fullHashes) {
    out.tag(1, LENGTH_DELIMITED);
    out.uint32(fullHashSize(fullHash));
    if (fullHash.fullHash.length > 0) {
      out.tag(1, LENGTH_DELIMITED);
      out.uint32(fullHash.fullHash.length);
      out.bytes(fullHash.fullHash);
    }
    for (const detail of fullHash.fullHashDetails) {
      out.tag(2, LENGTH_DELIMITED);
      out.uint32(detailSize(detail));
      if (detail.threatType !== ThreatType.THREAT_TYPE_UNSPECIFIED) {
        out.tag(1, VARINT);
        out.int32(detail.threatType);
      }
      if (detail.attributes.length > 0) {
        // proto3 packs repeated enums.
        out.tag(2, LENGTH_DELIMITED);
        out.uint32(packedSize(detail.attributes));
        for (const attribute of detail.attributes) out.int32(attribute);
      }
    }
  }
  const duration = message.cacheDuration;
  if (duration !== undefined) {
    out.tag(2, LENGTH_DELIMITED);
    out.uint32(durationSize(duration));
    if (duration.seconds !== 0n) {
      out.tag(1, VARINT);
      out.uint64(BigInt.asUintN(64, duration.seconds));
    }
    if (duration.nanos !== 0) {
      out.tag(2, VARINT);
      out.int32(duration.nanos);
    }
  }
  return out.done();
}

const VARINT = 0;
const LENGTH_DELIMITED = 2;

function fullHashSize(fullHash: FullHash): number {
  let size = fullHash.fullHash.length > 0 ? delimitedSize(fullHash.fullHash.length) : 0;
  for (const detail of fullHash.fullHashDetails) size += delimitedSize(detailSize(detail));
  return size;
}

function detailSize(detail: FullHashDetail): number {
  let size = detail.threatType !== ThreatType.THREAT_TYPE_UNSPECIFIED ? 1 + int32Size(detail.threatType) : 0;
  if (detail.attributes.length > 0) size += delimitedSize(packedSize(detail.attributes));
  return size;
}

function packedSize(values: readonly number[]): number {
  let size = 0;
  for (const value of values) size += int32Size(value);
  return size;
}

function durationSize(duration: Duration): number {
  let size = duration.seconds !== 0n ? 1 + uint64Size(BigInt.asUintN(64, duration.seconds)) : 0;
  if (duration.nanos !== 0) size += 1 + int32Size(duration.nanos);
  return size;
}

/** A one-byte tag, a length and `length` bytes of content (every field here has a number below 16). */
function delimitedSize(length: number): number {
  return 1 + uint32Size(length) + length;
}

function uint32Size(value: number): number {
  let size = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) size++;
  return size;
}

/** int32 as protobuf writes it: negative values sign-extended to ten bytes. */
function int32Size(value: number): number {
  return value < 0 ? 10 : uint32Size(value);
}

function uint64Size(value: bigint): number {
  let size = 1;
  for (let rest = value >> 7n; rest > 0n; rest >>= 7n) size++;
  return size;
}

/** Varints and bytes into a buffer of the size computed beforehand. */
class Writer {
  private readonly buffer: Buffer;
  private offset = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  tag(field: number, wireType: number): void {
    this.buffer[this.offset++] = (field << 3) | wireType;
  }

  uint32(value: number): void {
    let rest = value >>> 0;
    while (rest > 0x7f) {
      this.buffer[this.offset++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buffer[this.offset++] = rest;
  }

  int32(value: number): void {
    if (value >= 0) this.uint32(value);
    else this.uint64(BigInt.asUintN(64, BigInt(value)));
  }

  uint64(value: bigint): void {
    let rest = value;
    while (rest > 0x7fn) {
      this.buffer[this.offset++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buffer[this.offset++] = Number(rest);
  }

  bytes(value: Uint8Array): void {
    this.buffer.set(value, this.offset);
    this.offset += value.length;
  }

  done(): Buffer {
    if (this.offset !== this.buffer.length) throw new Error(`wrote ${this.offset} bytes of a ${this.buffer.length}-byte message`);
    return this.buffer;
  }
}
