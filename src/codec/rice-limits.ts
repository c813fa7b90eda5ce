import { RiceDecodeError } from './rice-error.ts';
import { RICE_FORMATS, isRiceParameterAllowed, type RiceFormat } from './rice-format.ts';

/**
 * The checks every decoder makes on a message's header before it allocates or reads anything, so that
 * a forged entries_count of 2^31 costs nothing but this error.
 */
export function checkRiceHeader(format: RiceFormat, riceParameter: number, entriesCount: number, encodedLength: number): void {
  if (!Number.isInteger(entriesCount) || entriesCount < 0) {
    throw new RiceDecodeError('count-negative', format, `entries_count is ${entriesCount}`);
  }
  if (!isRiceParameterAllowed(format, riceParameter, entriesCount)) {
    const { minParameter, maxParameter } = RICE_FORMATS[format];
    throw new RiceDecodeError(
      'parameter-out-of-range',
      format,
      `rice_parameter is ${riceParameter}, allowed ${minParameter}..${maxParameter} (or 0 without entries)`,
    );
  }
  // SB-10: an entry is a unary quotient of at least one bit plus a k-bit remainder.
  const capacity = Math.floor((encodedLength * 8) / (riceParameter + 1));
  if (entriesCount > capacity) {
    throw new RiceDecodeError(
      'count-too-large',
      format,
      `entries_count is ${entriesCount}, but ${encodedLength} bytes hold at most ${capacity} entries ` +
        `with rice_parameter ${riceParameter}`,
    );
  }
}

/**
 * After the last entry only the padding of the final byte may remain: a whole byte more means the
 * entry count and the data disagree. The padding bits' values are not checked: SB-10 does not say they
 * are zero, and a miscount small enough to hide in them still fails the list checksum (SB-9).
 */
export function checkNoTrailingData(format: RiceFormat, totalBits: number, position: number, entriesCount: number): void {
  const left = totalBits - position;
  if (left > 7) {
    throw new RiceDecodeError(
      'count-mismatch',
      format,
      `${left} bits remain after the ${entriesCount} entries that entries_count announced`,
    );
  }
}
