// v5 hash list names as clients send them (docs/api.md §1 and §3): `se-4b`, `csdda-32b`, `gc-32b`, test
// tables like `test-4b`, and the overview's short aliases (`se`, `mw`). They arrive in paths
// (`hashList/{name}`) and in `names=` parameters, so the server checks them before using them as keys.

import { WireError } from './wire-error.ts';

/** Far above any real name (the longest known is `csdda-32b`), low enough to keep logs and maps small. */
export const MAX_LIST_NAME_LENGTH = 64;

// ASCII letters and digits, then also `-`, `_` and `.`; no `:` (custom methods such as `:batchGet`),
// no `/` (path segments), nothing that needs escaping.
const LIST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Throws INVALID_ARGUMENT unless `name` is a plausible list name; `what` says where it came from. */
export function checkListName(name: string, what: string): void {
  if (name.length === 0) {
    throw new WireError('INVALID_ARGUMENT', `${what} is empty; name a hash list such as se-4b`);
  }
  if (name.length > MAX_LIST_NAME_LENGTH) {
    throw new WireError('INVALID_ARGUMENT', `${what} is ${name.length} characters long; list names have at most ${MAX_LIST_NAME_LENGTH}`);
  }
  if (!LIST_NAME.test(name)) {
    throw new WireError(
      'INVALID_ARGUMENT',
      `${what} ${JSON.stringify(name)} is not a list name: use ASCII letters, digits, "-", "_" and ".", starting with a letter or digit (e.g. se-4b)`,
    );
  }
}
