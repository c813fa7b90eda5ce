import { RICE_FORMATS, type RiceFormat } from './rice-format.ts';
import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../sbkit-error.ts';

const RICE_DECODE_REASONS = [
  'parameter-out-of-range',
  'first-value-out-of-range',
  'count-negative',
  'count-too-large',
  'out-of-bits',
  'value-overflow',
  'duplicate-entry',
  'count-mismatch',
] as const;
/** Why Rice-coded data from a server was refused. Named like Chromium's V4DecodeResult failures. */
export type RiceDecodeReason = (typeof RICE_DECODE_REASONS)[number];

const DECODE_EXPLANATIONS: Record<RiceDecodeReason, string> = {
  'parameter-out-of-range': 'the Rice parameter is outside the range the API allows',
  'first-value-out-of-range': 'the first value does not fit the integer width',
  'count-negative': 'the entry count is not a non-negative integer',
  'count-too-large': 'the entry count is larger than the encoded data could hold',
  'out-of-bits': 'the encoded data ends before the last entry',
  'value-overflow': 'a decoded value exceeds the largest integer of its width',
  'duplicate-entry': 'two neighbouring entries are equal (a zero delta)',
  'count-mismatch': 'whole bytes of encoded data are left over after the last entry',
};

/**
 * Thrown when a Rice-coded message from a server is malformed. The update that carried it is corrupt:
 * discard it, and for a list update fall back to a full update (SB-9).
 */
export class RiceDecodeError extends SbkitError {
  /** Always `"RiceDecodeError"`, as logs and stack traces show it. */
  override readonly name = 'RiceDecodeError';
  /** `SBKIT_RICE_DECODE_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'RICE_DECODE', RiceDecodeReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('RICE_DECODE', RICE_DECODE_REASONS);

  constructor(
    /** What is wrong with the data, for callers to branch on. */
    readonly reason: RiceDecodeReason,
    /** Which encoding was being read: v5 with 32-, 64-, 128- or 256-bit entries, or v4. */
    readonly format: RiceFormat,
    detail: string,
  ) {
    super(
      `cannot decode ${RICE_FORMATS[format].message}: ${DECODE_EXPLANATIONS[reason]} (${detail}); ` +
        'the update is corrupt, so discard it and request a full update',
    );
    this.code = errorCode('RICE_DECODE', reason);
  }
}

const RICE_ENCODE_REASONS = ['parameter-out-of-range', 'not-ascending', 'ragged-input'] as const;
/** Why a list could not be Rice-encoded: each is a mistake by the caller, not by a peer. */
export type RiceEncodeReason = (typeof RICE_ENCODE_REASONS)[number];

const ENCODE_EXPLANATIONS: Record<RiceEncodeReason, string> = {
  'parameter-out-of-range': 'the requested Rice parameter is outside the range the API allows',
  'not-ascending': 'the values must be sorted in strictly ascending order, without duplicates',
  'ragged-input': 'the byte length is not a whole number of hashes',
};

/** Thrown when values handed to an encoder cannot be encoded as they are. */
export class RiceEncodeError extends SbkitError {
  /** Always `"RiceEncodeError"`, as logs and stack traces show it. */
  override readonly name = 'RiceEncodeError';
  /** `SBKIT_RICE_ENCODE_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'RICE_ENCODE', RiceEncodeReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes('RICE_ENCODE', RICE_ENCODE_REASONS);

  constructor(
    /** What is wrong with the values, for callers to branch on. */
    readonly reason: RiceEncodeReason,
    /** Which encoding was being written. */
    readonly format: RiceFormat,
    detail: string,
  ) {
    super(`cannot encode ${RICE_FORMATS[format].message}: ${ENCODE_EXPLANATIONS[reason]} (${detail})`);
    this.code = errorCode('RICE_ENCODE', reason);
  }
}
