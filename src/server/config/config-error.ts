import { type ErrorCode, errorCode, SbkitError } from '../../sbkit-error.ts';

/**
 * A server configuration that cannot be used. `field` names the offending setting as a path into the
 * JSON (`lists[1].sources[0].refreshMinutes`), empty for the file as a whole, so that the operator can
 * go straight to it; the message says what is allowed.
 */
export class ConfigError extends SbkitError {
  /** Always `"ConfigError"`, as logs and stack traces show it. */
  override readonly name = 'ConfigError';
  /** Always `SBKIT_CONFIG`. */
  override readonly code = errorCode('CONFIG');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'CONFIG'>[] = [errorCode('CONFIG')];

  constructor(
    /** Path of the bad setting in the JSON, e.g. `lists[1].sources[0].refreshMinutes`; empty for the whole file. */
    readonly field: string,
    /** What is wrong and what is allowed. */
    readonly problem: string,
    /** The configuration file, when the configuration came from one. */
    readonly file?: string,
  ) {
    const where = [file, field].filter((part) => part !== undefined && part !== '').join(': ');
    super(where === '' ? problem : `${where}: ${problem}`);
  }
}
