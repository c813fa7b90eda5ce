import { RiceEncodeError } from './rice-error.ts';
import { RICE_FORMATS, isRiceParameterAllowed, type RiceFormat } from './rice-format.ts';

/** What a caller may ask of an encoder. */
export interface RiceEncodeOptions {
  /** Use this Rice parameter instead of the one that gives the shortest encoding. */
  riceParameter?: number;
}

/**
 * The Rice parameter an encoder uses and the exact length of the bit string it yields, so the encoder
 * can allocate its output once.
 */
export interface RiceParameterChoice {
  readonly riceParameter: number;
  readonly totalBits: number;
}

/**
 * Picks the Rice parameter k that makes the encoding shortest, within the range the API allows for
 * `format`, or checks and prices the one the caller asked for.
 *
 * With d deltas the length is d·(k + 1) + Σ⌊delta / 2^k⌋. That is convex in k (each step up adds d bits
 * and saves Σ(⌊delta/2^k⌋ - ⌊delta/2^(k+1)⌋), which shrinks as k grows), so walking downhill from the
 * estimate ⌊log2(mean delta)⌋ reaches the minimum in a few passes over the deltas.
 *
 * `quotientSum(k)` returns Σ⌊delta / 2^k⌋ for a k in the allowed range; `meanDeltaLog2` is
 * ⌊log2(mean delta)⌋, or anything close.
 */
export function chooseRiceParameter(
  format: RiceFormat,
  deltaCount: number,
  meanDeltaLog2: number,
  quotientSum: (riceParameter: number) => number,
  requested: number | undefined,
): RiceParameterChoice {
  const { minParameter, maxParameter, parameterWithoutEntries } = RICE_FORMATS[format];
  const lengthFor = (k: number): number => deltaCount * (k + 1) + quotientSum(k);
  if (requested !== undefined) {
    if (!isRiceParameterAllowed(format, requested, deltaCount)) {
      throw new RiceEncodeError(
        'parameter-out-of-range',
        format,
        `asked for ${requested}; use ${minParameter}..${maxParameter}, or leave it out to have one chosen`,
      );
    }
    return { riceParameter: requested, totalBits: deltaCount === 0 ? 0 : lengthFor(requested) };
  }
  if (deltaCount === 0) return { riceParameter: parameterWithoutEntries, totalBits: 0 };

  let k = Math.min(maxParameter, Math.max(minParameter, meanDeltaLog2));
  let length = lengthFor(k);
  const start = k;
  while (k < maxParameter) {
    const lengthAbove = lengthFor(k + 1);
    if (lengthAbove >= length) break;
    k += 1;
    length = lengthAbove;
  }
  if (k === start) {
    while (k > minParameter) {
      const lengthBelow = lengthFor(k - 1);
      if (lengthBelow >= length) break;
      k -= 1;
      length = lengthBelow;
    }
  }
  return { riceParameter: k, totalBits: length };
}
