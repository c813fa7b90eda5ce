/**
 * A server configuration that cannot be used. `field` names the offending setting as a path into the
 * JSON (`lists[1].sources[0].refreshMinutes`), empty for the file as a whole, so that the operator can
 * go straight to it; the message says what is allowed.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(
    readonly field: string,
    readonly problem: string,
    readonly file?: string,
  ) {
    const where = [file, field].filter((part) => part !== undefined && part !== '').join(': ');
    super(where === '' ? problem : `${where}: ${problem}`);
  }
}
