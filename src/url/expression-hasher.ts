/**
 * SB-7 for a batch of expressions, as the lookup path's 32-character byte strings, in order. A runtime
 * that hashes synchronously (Node) returns the array; one whose SHA-256 is asynchronous (WebCrypto)
 * returns a promise for the whole batch, so that the check of many URLs waits once, not once per hash.
 */
export interface ExpressionHasher {
  hashAll(expressions: readonly string[]): string[] | Promise<string[]>;
  /** hashAll, always synchronous: present where the runtime hashes synchronously (Node), for bulk checks. */
  hashAllNow?: (expressions: readonly string[]) => string[];
}
