/**
 * Writes a bit string packed least-significant bit first (SB-10): the first bit written becomes bit 0
 * of byte 0, and the last byte is padded with zero-bits. The encoders know the exact length in advance
 * (they compute it while choosing the Rice parameter), so the buffer is allocated once.
 */
export class BitWriter {
  readonly #bytes: Uint8Array;
  #byteIndex = 0;
  /** Bits written but not yet stored, fewer than 8 between calls. */
  #pending = 0;
  #pendingBits = 0;

  constructor(totalBits: number) {
    this.#bytes = new Uint8Array(Math.ceil(totalBits / 8));
  }

  /** Writes the low `count` (0..32) bits of `value`, least significant first. */
  writeBits(value: number, count: number): void {
    let rest = value;
    let left = count;
    // At most 24 bits at a time, so that pending bits plus new ones stay within a 32-bit integer.
    while (left > 0) {
      const take = left < 24 ? left : 24;
      this.#pending |= (rest & ((1 << take) - 1)) << this.#pendingBits;
      this.#pendingBits += take;
      rest >>>= take;
      left -= take;
      while (this.#pendingBits >= 8) {
        this.#bytes[this.#byteIndex++] = this.#pending;
        this.#pending >>>= 8;
        this.#pendingBits -= 8;
      }
    }
  }

  /** Writes `ones` one-bits then a zero-bit: the unary quotient of SB-10, (1 << q) - 1 in 1 + q bits. */
  writeUnary(ones: number): void {
    let left = ones;
    while (left >= 24) {
      this.writeBits(0xffffff, 24);
      left -= 24;
    }
    this.writeBits((1 << left) - 1, left + 1);
  }

  /** The bytes written so far, the last one zero-padded. */
  finish(): Uint8Array {
    if (this.#pendingBits > 0) {
      this.#bytes[this.#byteIndex++] = this.#pending;
      this.#pending = 0;
      this.#pendingBits = 0;
    }
    return this.#bytes.subarray(0, this.#byteIndex);
  }
}
