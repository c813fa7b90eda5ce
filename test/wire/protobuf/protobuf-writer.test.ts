import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BinaryReader, BinaryWriter, WireType as RuntimeWireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { FieldReader } from '../../../src/wire/protobuf/protobuf-reader.ts';
import { delimitedSize, FieldWriter, int32Size, tagSize, uint32Size, uint64Size } from '../../../src/wire/protobuf/protobuf-writer.ts';
import { WireType } from '../../../src/wire/protobuf/wire-type.ts';

/**
 * Each kind of field the writer writes: its size without the tag, how ours writes it (tag included)
 * and reads it, and how protobuf-es's runtime does (what the generated code's toBinary and fromBinary
 * use). Bytes are read back as a plain Uint8Array, as the generated code has them.
 */
interface Kind<V> {
  value: fc.Arbitrary<V>;
  size: (value: V) => number;
  write: (out: FieldWriter, no: number, value: V) => void;
  read: (reader: FieldReader) => V;
  runtimeWireType: RuntimeWireType;
  runtimeWrite: (out: BinaryWriter, value: V) => void;
  runtimeRead: (reader: BinaryReader) => V;
}

const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const KINDS = {
  uint32: {
    value: u32,
    size: uint32Size,
    write: (out, no, value) => (out.tag(no, WireType.varint), out.uint32(value)),
    read: (reader) => reader.uint32(),
    runtimeWireType: RuntimeWireType.Varint,
    runtimeWrite: (out, value) => out.uint32(value),
    runtimeRead: (reader) => reader.uint32(),
  } satisfies Kind<number>,
  int32: {
    value: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    size: int32Size,
    write: (out, no, value) => (out.tag(no, WireType.varint), out.int32(value)),
    read: (reader) => reader.int32(),
    runtimeWireType: RuntimeWireType.Varint,
    runtimeWrite: (out, value) => out.int32(value),
    runtimeRead: (reader) => reader.int32(),
  } satisfies Kind<number>,
  fixed32: {
    value: u32,
    size: () => 4,
    write: (out, no, value) => (out.tag(no, WireType.fixed32), out.fixed32(value)),
    read: (reader) => reader.fixed32(),
    runtimeWireType: RuntimeWireType.Bit32,
    runtimeWrite: (out, value) => out.fixed32(value),
    runtimeRead: (reader) => reader.fixed32(),
  } satisfies Kind<number>,
  uint64: {
    value: u64,
    size: uint64Size,
    write: (out, no, value) => (out.tag(no, WireType.varint), out.uint64(value)),
    read: (reader) => reader.uint64(),
    runtimeWireType: RuntimeWireType.Varint,
    runtimeWrite: (out, value) => out.uint64(value),
    runtimeRead: (reader) => BigInt(reader.uint64()),
  } satisfies Kind<bigint>,
  fixed64: {
    value: u64,
    size: () => 8,
    write: (out, no, value) => (out.tag(no, WireType.fixed64), out.fixed64(value)),
    read: (reader) => reader.fixed64(),
    runtimeWireType: RuntimeWireType.Bit64,
    runtimeWrite: (out, value) => out.fixed64(value),
    runtimeRead: (reader) => BigInt(reader.fixed64()),
  } satisfies Kind<bigint>,
  bytes: {
    value: fc.uint8Array({ maxLength: 300 }),
    size: (value) => uint32Size(value.length) + value.length,
    write: (out, no, value) => out.bytesField(no, value),
    read: (reader) => new Uint8Array(reader.bytesField()),
    runtimeWireType: RuntimeWireType.LengthDelimited,
    runtimeWrite: (out, value) => out.bytes(value),
    runtimeRead: (reader) => new Uint8Array(reader.bytes()),
  } satisfies Kind<Uint8Array>,
};
type KindName = keyof typeof KINDS;

/** A field of any kind, under any field number protobuf allows (1 to 2^29 − 1). */
interface Field {
  kind: KindName;
  no: number;
  value: unknown;
}

const no = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 2 ** 29 - 1 }));
const field: fc.Arbitrary<Field> = fc.oneof(
  ...(Object.keys(KINDS) as KindName[]).map((kind) =>
    fc.record<Field>({ kind: fc.constant(kind), no, value: (KINDS[kind] as Kind<unknown>).value }, { noNullPrototype: true }),
  ),
);
const fields = fc.array(field, { maxLength: 12 });

const kindOf = (f: Field) => KINDS[f.kind] as Kind<unknown>;

function write(message: readonly Field[]): Uint8Array {
  const size = message.reduce((sum, f) => sum + tagSize(f.no) + kindOf(f).size(f.value), 0);
  const out = new FieldWriter(size);
  for (const f of message) kindOf(f).write(out, f.no, f.value);
  return out.done();
}

function writeWithRuntime(message: readonly Field[]): Uint8Array {
  const out = new BinaryWriter();
  for (const f of message) kindOf(f).runtimeWrite(out.tag(f.no, kindOf(f).runtimeWireType), f.value);
  return out.finish();
}

/** The fields of `bytes` as our reader reads them, each by the kind `expected` has in its place. */
function read(bytes: Uint8Array, expected: readonly Field[]): Field[] {
  const reader = new FieldReader(bytes, 'the message');
  const out = expected.map((f) => {
    assert.ok(reader.next(), 'a field is missing');
    return { kind: f.kind, no: reader.field, value: kindOf(f).read(reader) };
  });
  assert.equal(reader.next(), false, 'a field too many');
  return out;
}

function readWithRuntime(bytes: Uint8Array, expected: readonly Field[]): Field[] {
  const reader = new BinaryReader(bytes);
  const out = expected.map((f) => {
    const [number, wireType] = reader.tag();
    assert.equal(wireType, kindOf(f).runtimeWireType);
    return { kind: f.kind, no: number, value: kindOf(f).runtimeRead(reader) };
  });
  assert.equal(reader.pos, reader.len, 'bytes left over');
  return out;
}

describe('FieldWriter', () => {
  it('property: writes any fields as protobuf-es writes them, in exactly the size worked out', () => {
    fc.assert(
      fc.property(fields, (message) => {
        assert.deepEqual(Buffer.from(write(message)), Buffer.from(writeWithRuntime(message)));
      }),
      { numRuns: 500 },
    );
    assert.equal(delimitedSize(16, 200), 2 + 2 + 200);
  });

  it('property: what it writes, our reader and protobuf-es read back as written', () => {
    fc.assert(
      fc.property(fields, (message) => {
        const bytes = write(message);
        assert.deepEqual(read(bytes, message), message);
        assert.deepEqual(readWithRuntime(bytes, message), message);
      }),
      { numRuns: 500 },
    );
  });

  it('property: what protobuf-es writes, our reader reads as written', () => {
    fc.assert(
      fc.property(fields, (message) => {
        assert.deepEqual(read(writeWithRuntime(message), message), message);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses to hand over a message of another size than it was made with', () => {
    const out = new FieldWriter(3);
    out.tag(1, WireType.varint);
    out.uint32(1);
    assert.throws(() => out.done(), /wrote 2 bytes of a 3-byte message/);
  });
});
