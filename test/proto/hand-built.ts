// Protobuf bytes built by hand, field by field, so that tests can say exactly what a proto2 encoder in a
// browser puts on the wire (unpacked repeated scalars) independently of the library under test.

export type Bytes = readonly number[];

function varint(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v === 0n ? low : low | 0x80);
  } while (v !== 0n);
  return out;
}

function key(field: number, wireType: 0 | 1 | 2 | 5): number[] {
  return varint((field << 3) | wireType);
}

/** A varint field (int32, int64, uint32, uint64, bool, enum). */
export function varintField(field: number, value: number | bigint): number[] {
  return [...key(field, 0), ...varint(value)];
}

/** A fixed64 field, little-endian. */
export function fixed64Field(field: number, value: bigint): number[] {
  const out = key(field, 1);
  for (let i = 0n; i < 8n; i++) out.push(Number((value >> (8n * i)) & 0xffn));
  return out;
}

/** A length-delimited field: bytes, string or an embedded message. */
export function lengthField(field: number, payload: Bytes | Uint8Array | string): number[] {
  const bytes = typeof payload === 'string' ? [...new TextEncoder().encode(payload)] : [...payload];
  return [...key(field, 2), ...varint(bytes.length), ...bytes];
}

/** A repeated varint field the proto2 way: one key per element. */
export function unpackedField(field: number, values: readonly number[]): number[] {
  return values.flatMap((v) => varintField(field, v));
}

/** A repeated varint field the proto3 way: one length-delimited run. */
export function packedField(field: number, values: readonly number[]): number[] {
  return lengthField(
    field,
    values.flatMap((v) => varint(v)),
  );
}

export function bytes(...parts: Bytes[]): Uint8Array {
  return new Uint8Array(parts.flat());
}
