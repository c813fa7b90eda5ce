// Binary protobuf read field by field, without a protobuf runtime: what the browser build and Node's v5
// client read answers with (v5-binary.ts), and the client reads error bodies with (error-status.ts); the
// writer beside it (protobuf-writer.ts) writes what this reads. Unknown fields are skipped, as protobuf
// requires; a message cut short or malformed is a WireError.

import { WireError } from '../wire-error.ts';
import { WireType } from './wire-type.ts';

/** Groups inside groups, at most: deeper nesting in an answer is an attack, not a Safe Browsing server. */
const MAX_GROUP_DEPTH = 32;

/** A protobuf message's fields, one after the other. */
export class FieldReader {
  private offset = 0;
  field = 0;
  private wireType = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  private fail(detail: string): WireError {
    return new WireError('INVALID_ARGUMENT', `${this.what} is not a valid protobuf message: ${detail}`);
  }

  /** Moves to the next field; false at the end of the message. */
  next(): boolean {
    if (this.offset >= this.bytes.length) return false;
    const tag = this.varint();
    this.field = Number(tag >> 3n);
    this.wireType = Number(tag & 7n);
    if (this.field === 0) throw this.fail('field number 0');
    return true;
  }

  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.offset >= this.bytes.length) throw this.fail('a number is cut short');
      const byte = this.bytes[this.offset++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value & 0xffffffffffffffffn;
    }
    throw this.fail('a number runs past ten bytes');
  }

  /** An int32 or enum: the low 32 bits, signed. */
  int32(): number {
    this.expect(WireType.varint);
    return Number(BigInt.asIntN(32, this.varint()));
  }

  uint32(): number {
    this.expect(WireType.varint);
    return Number(BigInt.asUintN(32, this.varint()));
  }

  uint64(): bigint {
    this.expect(WireType.varint);
    return this.varint();
  }

  bool(): boolean {
    this.expect(WireType.varint);
    return this.varint() !== 0n;
  }

  fixed32(): number {
    this.expect(WireType.fixed32);
    const at = this.take(4);
    return new DataView(at.buffer, at.byteOffset, 4).getUint32(0, true);
  }

  fixed64(): bigint {
    this.expect(WireType.fixed64);
    const at = this.take(8);
    return new DataView(at.buffer, at.byteOffset, 8).getBigUint64(0, true);
  }

  /** A length-delimited field: bytes, a string or a message. A copy, so that the answer's buffer can go. */
  bytesField(): Uint8Array {
    this.expect(WireType.lengthDelimited);
    return this.take(Number(this.varint())).slice();
  }

  string(): string {
    return new TextDecoder().decode(this.bytesField());
  }

  /** Packed or not, as protobuf parsers must accept both: the enum values of a repeated field. */
  repeatedEnum(into: number[]): void {
    if (this.wireType !== WireType.lengthDelimited) {
      into.push(this.int32());
      return;
    }
    const packed = new FieldReader(this.take(Number(this.varint())), this.what);
    while (packed.offset < packed.bytes.length) into.push(Number(BigInt.asIntN(32, packed.varint())));
  }

  skip(): void {
    switch (this.wireType) {
      case WireType.varint:
        this.varint();
        return;
      case WireType.fixed64:
        this.take(8);
        return;
      case WireType.lengthDelimited:
        this.take(Number(this.varint()));
        return;
      case WireType.fixed32:
        this.take(4);
        return;
      case WireType.startGroup:
        this.skipGroup(this.field, 1);
        return;
      default:
        throw this.fail(`wire type ${this.wireType} of field ${this.field}`);
    }
  }

  /** proto2's groups, obsolete but still valid for an unknown field: everything up to the group's end. */
  private skipGroup(field: number, depth: number): void {
    if (depth > MAX_GROUP_DEPTH) throw this.fail(`groups nested deeper than ${MAX_GROUP_DEPTH}`);
    while (this.next()) {
      if (this.wireType === WireType.endGroup) {
        if (this.field !== field) throw this.fail(`group ${field} ends as group ${this.field}`);
        return;
      }
      if (this.wireType === WireType.startGroup) this.skipGroup(this.field, depth + 1);
      else this.skip();
    }
    throw this.fail(`group ${field} has no end`);
  }

  private expect(wireType: WireType): void {
    if (this.wireType !== wireType) throw this.fail(`field ${this.field} has wire type ${this.wireType}, not ${wireType}`);
  }

  private take(length: number): Uint8Array {
    if (length > this.bytes.length - this.offset) throw this.fail('a field runs past the end of its message');
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}

/** Reads the fields of the message in `bytes` into `initial`, one by one with `read`; `what` names it in errors. */
export function readMessage<T>(bytes: Uint8Array, what: string, initial: T, read: (reader: FieldReader, message: T) => void): T {
  const reader = new FieldReader(bytes, what);
  while (reader.next()) read(reader, initial);
  return initial;
}
