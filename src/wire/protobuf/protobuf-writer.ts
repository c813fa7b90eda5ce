// Binary protobuf written field by field, without a protobuf runtime, into a buffer of the size worked
// out beforehand: a message's size is the sum of its fields' sizes (the functions below), a nested
// message's too, so nothing is written twice or copied. The encodings are protobuf's own: varints of one
// to ten bytes, an int32 below zero sign-extended to ten, fixed32 and fixed64 little-endian. A message
// written here is read by protobuf-reader.ts and by the generated code alike, and with the fields in
// the generated code's order it is the generated code's bytes (test/wire/protobuf/protobuf-writer.test.ts).

import { WireType } from './wire-type.ts';

/** Node's Buffer where there is one: small buffers come from its pool, not each from a new ArrayBuffer. */
const nodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** The bytes of a uint32 (or a length, or a tag) as a varint. */
export function uint32Size(value: number): number {
  let size = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) size++;
  return size;
}

/** The bytes of an int32 or enum as a varint: a negative value is sign-extended to ten bytes. */
export function int32Size(value: number): number {
  return value < 0 ? 10 : uint32Size(value);
}

/** The bytes of a uint64 (an int64 as its two's complement) as a varint. */
export function uint64Size(value: bigint): number {
  let size = 1;
  for (let rest = value >> 7n; rest > 0n; rest >>= 7n) size++;
  return size;
}

/** The bytes of a field's tag: one for fields 1 to 15, the numbers small messages use. */
export function tagSize(field: number): number {
  return field < 16 ? 1 : uint32Size(field << 3);
}

/** The bytes of a length-delimited field with `length` bytes of content: tag, length, content. */
export function delimitedSize(field: number, length: number): number {
  return tagSize(field) + uint32Size(length) + length;
}

/** A message's fields, one after the other, into exactly `size` bytes. */
export class FieldWriter {
  private readonly buffer: Uint8Array;
  private offset = 0;

  constructor(size: number) {
    this.buffer = nodeBuffer === undefined ? new Uint8Array(size) : nodeBuffer.allocUnsafe(size);
  }

  tag(field: number, wireType: WireType): void {
    if (field < 16) this.buffer[this.offset++] = (field << 3) | wireType;
    else this.uint32((field << 3) | wireType);
  }

  uint32(value: number): void {
    let rest = value >>> 0;
    while (rest > 0x7f) {
      this.buffer[this.offset++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.buffer[this.offset++] = rest;
  }

  /** An int32 or enum. */
  int32(value: number): void {
    if (value >= 0) this.uint32(value);
    else this.uint64(BigInt.asUintN(64, BigInt(value)));
  }

  /** A uint64, or an int64 given as BigInt.asUintN(64, value). */
  uint64(value: bigint): void {
    let rest = value;
    while (rest > 0x7fn) {
      this.buffer[this.offset++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buffer[this.offset++] = Number(rest);
  }

  /** Little-endian, byte by byte: a DataView per message would cost more than a small message's fields. */
  fixed32(value: number): void {
    this.buffer[this.offset++] = value & 0xff;
    this.buffer[this.offset++] = (value >>> 8) & 0xff;
    this.buffer[this.offset++] = (value >>> 16) & 0xff;
    this.buffer[this.offset++] = (value >>> 24) & 0xff;
  }

  fixed64(value: bigint): void {
    const unsigned = BigInt.asUintN(64, value);
    this.fixed32(Number(unsigned & 0xffffffffn));
    this.fixed32(Number(unsigned >> 32n));
  }

  /** The tag and length of a length-delimited field whose `length` bytes of content are written next. */
  delimited(field: number, length: number): void {
    this.tag(field, WireType.lengthDelimited);
    this.uint32(length);
  }

  /** A bytes field: tag, length and the bytes. */
  bytesField(field: number, value: Uint8Array): void {
    this.delimited(field, value.length);
    this.buffer.set(value, this.offset);
    this.offset += value.length;
  }

  /** The message, once exactly the size it was made with has been written. */
  done(): Uint8Array {
    if (this.offset !== this.buffer.length) throw new Error(`wrote ${this.offset} bytes of a ${this.buffer.length}-byte message`);
    return this.buffer;
  }
}
