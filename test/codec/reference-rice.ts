/**
 * A deliberately plain Rice coder for the tests to check the real one against: one array element per
 * bit and BigInt arithmetic, written straight from SB-10's description, with nothing shared with
 * src/codec. Slow, so only for small lists with small quotients.
 */

/** The bits of SB-10 for the deltas of `values` (ascending), packed least-significant bit first. */
export function referenceEncode(values: readonly bigint[], riceParameter: number): Uint8Array {
  const bits: number[] = [];
  const k = BigInt(riceParameter);
  for (let i = 1; i < values.length; i++) {
    const delta = values[i]! - values[i - 1]!;
    const quotient = delta >> k;
    for (let q = 0n; q < quotient; q++) bits.push(1);
    bits.push(0);
    for (let bit = 0n; bit < k; bit++) bits.push(Number((delta >> bit) & 1n));
  }
  const bytes = new Uint8Array(Math.ceil(bits.length / 8));
  bits.forEach((bit, index) => {
    bytes[index >> 3]! |= bit << (index & 7);
  });
  return bytes;
}

/** Concatenates `values` as big-endian integers of `width` bytes. */
export function toBigEndian(values: readonly bigint[], width: number): Uint8Array {
  const bytes = new Uint8Array(values.length * width);
  values.forEach((value, index) => {
    for (let byte = 0; byte < width; byte++) {
      bytes[index * width + byte] = Number((value >> BigInt(8 * (width - 1 - byte))) & 0xffn);
    }
  });
  return bytes;
}

/** Splits concatenated big-endian integers of `width` bytes. */
export function fromBigEndian(bytes: Uint8Array, width: number): bigint[] {
  const values: bigint[] = [];
  for (let offset = 0; offset < bytes.length; offset += width) {
    let value = 0n;
    for (let byte = 0; byte < width; byte++) value = (value << 8n) | BigInt(bytes[offset + byte]!);
    values.push(value);
  }
  return values;
}

/** Sorts bigints ascending and drops repeats. */
export function sortedDistinct(values: readonly bigint[]): bigint[] {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.filter((value, index) => index === 0 || value !== sorted[index - 1]);
}

/** The hex digits of `bytes`. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The bytes of a hex string. */
export function fromHex(digits: string): Uint8Array {
  return new Uint8Array(Buffer.from(digits, 'hex'));
}
