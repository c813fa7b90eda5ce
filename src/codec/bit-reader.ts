/**
 * Reads a bit string packed least-significant bit first, the Rice layout of SB-10: bit 0 of byte 0
 * comes first. The bytes are copied once into little-endian 32-bit words, so that the 32 bits starting
 * at any position cost two loads and two shifts; that is what keeps the 32-bit decoder well above its
 * 50 M entries/s budget. The reader holds no position: callers keep theirs in a local variable of
 * their loop and pass it in.
 *
 * Bits past the end of the data read as zero. Callers compare their position with `totalBits` after
 * each entry and refuse data they over-read; because the words past the data are zero, a unary run
 * ends at the latest one bit past the end, so every loop here is bounded by the data length.
 */
export class BitReader {
  /** Number of bits in the data. */
  readonly totalBits: number;
  readonly #words: Uint32Array;

  constructor(data: Uint8Array) {
    this.totalBits = data.length * 8;
    const whole = data.length >>> 2;
    // One word for a partial tail and one zero word, so that a window starting up to one bit past the
    // end still has both its words inside the array.
    const words = new Uint32Array(whole + 2);
    // DataView reads little-endian on any host, at about 1 ns per word here.
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let i = 0; i < whole; i++) words[i] = view.getUint32(i * 4, true);
    let tail = 0;
    for (let b = whole * 4, shift = 0; b < data.length; b++, shift += 8) tail |= data[b]! << shift;
    words[whole] = tail;
    this.#words = words;
  }

  /** The 32 bits starting at bit `position` (bit 0 of the result comes first), as an int32. */
  peek(position: number): number {
    const index = position >>> 5;
    const shift = position & 31;
    // Shifting the next word in two steps makes shift = 0 contribute nothing (a JS shift by 32 is by 0).
    return (this.#words[index]! >>> shift) | ((this.#words[index + 1]! << 1) << (31 - shift));
  }

  /** The `count` (1..32) bits from bit `position` as an unsigned integer, the first bit least significant. */
  read(position: number, count: number): number {
    return (this.peek(position) << (32 - count)) >>> (32 - count);
  }

  /**
   * The number of consecutive one-bits from bit `position`: a unary number, whose terminating zero-bit
   * is at `position` + the result.
   */
  countOnes(position: number): number {
    let ones = 0;
    for (;;) {
      const window = this.peek(position + ones);
      // w & (~w - 1) keeps exactly the trailing one-bits; their count is 32 minus the leading zeros.
      const run = 32 - Math.clz32(window & (~window - 1));
      ones += run;
      if (run < 32) return ones;
    }
  }
}
