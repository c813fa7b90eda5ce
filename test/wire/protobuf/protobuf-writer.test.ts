import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BinaryReader, BinaryWriter, WireType as RuntimeWireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { FieldReader } from '../../../src/wire/protobuf/protobuf-reader.ts';
import { delimitedSize, FieldWriter, int32Size, tagSize, uint32Size, uint64Size } from '../../../src/wire/protobuf/protobuf-writer.ts';
import { WireType } from '../../../src/wire/protobuf/wire-type.ts';

/** One field of any kind the writer writes, under any field number protobuf allows (1 to 2^29 − 1). */
type Field =
  | { kind: 'uint32' | 'int32' | 'fixed32'; no: number; value: number }
  | { kind: 'uint64' | 'fixed64'; no: number; value: bigint }
  | { kind: 'bytes'; no: number; value: Uint8Array };

const no = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 2 ** 29 - 1 }));
const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
/** Records as the readers below build them, with Object's prototype. */
const PLAIN = { noNullPrototype: true };
const field: fc.Arbitrary<Field> = fc.oneof(
  fc.record({ kind: fc.constant('uint32' as const), no, value: u32 }, PLAIN),
  fc.record({ kind: fc.constant('int32' as const), no, value: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) }, PLAIN),
  fc.record({ kind: fc.constant('fixed32' as const), no, value: u32 }, PLAIN),
  fc.record({ kind: fc.constant('uint64' as const), no, value: u64 }, PLAIN),
  fc.record({ kind: fc.constant('fixed64' as const), no, value: u64 }, PLAIN),
  fc.record({ kind: fc.constant('bytes' as const), no, value: fc.uint8Array({ maxLength: 300 }) }, PLAIN),
);
const fields = fc.array(field, { maxLength: 12 });

function sizeOf(f: Field): number {
  switch (f.kind) {
    case 'uint32':
      return tagSize(f.no) + uint32Size(f.value);
    case 'int32':
      return tagSize(f.no) + int32Size(f.value);
    case 'fixed32':
      return tagSize(f.no) + 4;
    case 'uint64':
      return tagSize(f.no) + uint64Size(f.value);
    case 'fixed64':
      return tagSize(f.no) + 8;
    case 'bytes':
      return delimitedSize(f.no, f.value.length);
  }
}

function write(message: readonly Field[]): Uint8Array {
  const out = new FieldWriter(message.reduce((size, f) => size + sizeOf(f), 0));
  for (const f of message) {
    switch (f.kind) {
      case 'uint32':
        out.tag(f.no, WireType.varint);
        out.uint32(f.value);
        break;
      case 'int32':
        out.tag(f.no, WireType.varint);
        out.int32(f.value);
        break;
      case 'fixed32':
        out.tag(f.no, WireType.fixed32);
        out.fixed32(f.value);
        break;
      case 'uint64':
        out.tag(f.no, WireType.varint);
        out.uint64(f.value);
        break;
      case 'fixed64':
        out.tag(f.no, WireType.fixed64);
        out.fixed64(f.value);
        break;
      case 'bytes':
        out.bytesField(f.no, f.value);
        break;
    }
  }
  return out.done();
}

/** The same fields as protobuf-es's runtime, which the generated code's toBinary writes with. */
function writeWithRuntime(message: readonly Field[]): Uint8Array {
  const out = new BinaryWriter();
  for (const f of message) {
    switch (f.kind) {
      case 'uint32':
        out.tag(f.no, RuntimeWireType.Varint).uint32(f.value);
        break;
      case 'int32':
        out.tag(f.no, RuntimeWireType.Varint).int32(f.value);
        break;
      case 'fixed32':
        out.tag(f.no, RuntimeWireType.Bit32).fixed32(f.value);
        break;
      case 'uint64':
        out.tag(f.no, RuntimeWireType.Varint).uint64(f.value);
        break;
      case 'fixed64':
        out.tag(f.no, RuntimeWireType.Bit64).fixed64(f.value);
        break;
      case 'bytes':
        out.tag(f.no, RuntimeWireType.LengthDelimited).bytes(f.value);
        break;
    }
  }
  return out.finish();
}

/** The fields of `bytes` as our reader reads them, each by the kind `expected` has in its place. */
function read(bytes: Uint8Array, expected: readonly Field[]): Field[] {
  const reader = new FieldReader(bytes, 'the message');
  const out: Field[] = [];
  for (const f of expected) {
    assert.ok(reader.next(), 'a field is missing');
    if (f.kind === 'uint64' || f.kind === 'fixed64') out.push({ kind: f.kind, no: reader.field, value: reader[f.kind]() });
    // A plain Uint8Array, as generated: the reader's copy of bytes written into a Buffer is one.
    else if (f.kind === 'bytes') out.push({ kind: f.kind, no: reader.field, value: new Uint8Array(reader.bytesField()) });
    else out.push({ kind: f.kind, no: reader.field, value: reader[f.kind]() });
  }
  assert.equal(reader.next(), false, 'a field too many');
  return out;
}

/** The same as protobuf-es's runtime reads them, which the generated code's fromBinary reads with. */
function readWithRuntime(bytes: Uint8Array, expected: readonly Field[]): Field[] {
  const reader = new BinaryReader(bytes);
  const out: Field[] = expected.map((f) => {
    const [number] = reader.tag();
    if (f.kind === 'uint64' || f.kind === 'fixed64') return { kind: f.kind, no: number, value: BigInt(reader[f.kind]()) };
    if (f.kind === 'bytes') return { kind: f.kind, no: number, value: new Uint8Array(reader.bytes()) };
    return { kind: f.kind, no: number, value: reader[f.kind]() };
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
