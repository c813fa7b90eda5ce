// The operator's admin token: strong enough not to be guessed, asked for in the one form RFC 6750 gives
// it (`Authorization: Bearer <token>`), and compared without telling by its timing how close a guess was.

import { createHash, timingSafeEqual } from 'node:crypto';

/** 32 characters of `openssl rand -hex 32`'s 64 still carry 128 bits. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;
/** Random hex of 32 characters has about 14 distinct ones; fewer than this is no random token. */
const MIN_ADMIN_TOKEN_DISTINCT_CHARACTERS = 10;
/** How to make a good token, for every message that refuses one. */
const HOW_TO_MAKE_A_TOKEN = 'make one with "openssl rand -hex 32"';

/** The shortest unit the token repeats (`abcabcabc` → 3), or its length when it repeats none. */
function period(token: string): number {
  for (let unit = 1; unit <= token.length / 2; unit++) {
    if (token.length % unit === 0 && token.slice(unit) === token.slice(0, -unit)) return unit;
  }
  return token.length;
}

/** Neighbouring characters that are the same or next to each other (`aa`, `ab`, `98`): runs such as `abcd…` or `1111…`. */
function steps(token: string): number {
  let count = 0;
  for (let i = 1; i < token.length; i++) if (Math.abs(token.charCodeAt(i) - token.charCodeAt(i - 1)) <= 1) count++;
  return count;
}

/**
 * What makes `token` too weak to guard the operator's endpoints, or undefined for a good one: fewer than
 * MIN_ADMIN_TOKEN_LENGTH characters, fewer than MIN_ADMIN_TOKEN_DISTINCT_CHARACTERS distinct ones, a
 * repeated unit (`0123456789` four times), or mostly a run (`abcdefgh…`). The message says how to make one.
 */
export function adminTokenProblem(token: string): string | undefined {
  const problem =
    token.length < MIN_ADMIN_TOKEN_LENGTH
      ? `has ${token.length} characters, fewer than the ${MIN_ADMIN_TOKEN_LENGTH} an admin token needs`
      : new Set(token).size < MIN_ADMIN_TOKEN_DISTINCT_CHARACTERS
        ? `uses only ${new Set(token).size} different characters, fewer than ${MIN_ADMIN_TOKEN_DISTINCT_CHARACTERS}: it is not random`
        : period(token) < token.length
          ? `repeats its first ${period(token)} characters: it is not random`
          : steps(token) * 2 > token.length
            ? 'is mostly a run of neighbouring characters (abcd…, 1111…): it is not random'
            : undefined;
  return problem === undefined ? undefined : `${problem}; ${HOW_TO_MAKE_A_TOKEN}`;
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1, the scheme case-insensitive);
 * undefined for any other form, a bare token included.
 */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Constant-time comparison: both sides are hashed first, so that neither a guess's length nor how many of
 * its first characters are right shows in the time taken.
 */
export function tokenMatches(given: string | undefined, token: string): boolean {
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}
