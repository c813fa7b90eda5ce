// The grammar of a list name, the one every layer checks names with: a name arrives in REST paths and
// `names=` parameters, in a server's configuration, in the client's options and the CLI's --lists, and
// on disk as a file of the local database, and it must be the same word in all of them.

/** Far above any real name (the longest known is `csdda-32b`), low enough to keep logs, maps and file names small. */
export const MAX_LIST_NAME_LENGTH = 64;

/**
 * ASCII letters and digits first, then also `-`, `_` and `.`: no `:` (custom methods such as
 * `:batchGet`), no `/` (path segments), nothing that needs escaping in a URL or a file name.
 */
const LIST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why a string is no list name. */
export type ListNameProblem = 'empty' | 'too-long' | 'characters';

/** Why `name` is no list name, or undefined when it is one. */
export function listNameProblem(name: string): ListNameProblem | undefined {
  if (name.length === 0) return 'empty';
  if (name.length > MAX_LIST_NAME_LENGTH) return 'too-long';
  return LIST_NAME.test(name) ? undefined : 'characters';
}

/** What is wrong with a name, in the words every entry point uses. */
export function listNameReason(name: string, problem: ListNameProblem): string {
  switch (problem) {
    case 'empty':
      return 'a list name is empty; name a hash list such as se-4b';
    case 'too-long':
      return `a list name of ${name.length} characters is too long; list names have at most ${MAX_LIST_NAME_LENGTH}`;
    case 'characters':
      return `${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} is not a list name: use ASCII letters, digits, "-", "_" and ".", starting with a letter or digit (e.g. se-4b)`;
  }
}

/** Widths of the hashes a list can hold, in bytes (docs/api.md HashListMetadata.HashLength). */
export type HashWidth = 4 | 8 | 16 | 32;
export const HASH_WIDTHS: readonly HashWidth[] = [4, 8, 16, 32];

const WIDTH_SUFFIX = /-(4|8|16|32)b$/;

/** The width a list's name states with its `-4b`, `-8b`, `-16b` or `-32b` suffix; undefined without one. */
export function widthOfListName(name: string): HashWidth | undefined {
  const match = WIDTH_SUFFIX.exec(name);
  return match === null ? undefined : (Number(match[1]) as HashWidth);
}
