import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package version, read from package.json so that User-Agent and `--version` never drift from it. */
export const VERSION: string = (require('../package.json') as { version: string }).version;
