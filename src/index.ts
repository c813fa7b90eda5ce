/**
 * sbkit: the Safe Browsing client library and the URL pipeline. The server is `sbkit/server`, so that
 * a program that only checks URLs never loads it.
 *
 * A URL check, as data:
 *
 *   URL ──canonicalizeUrl (SB-5)──▶ canonical URL ──urlExpressions (SB-6)──▶ ≤ 30 expressions
 *       ──expressionHash (SB-7)──▶ SHA-256 full hashes ──▶ 4-byte prefixes
 *       ──▶ local cache ──▶ local lists ──▶ hashes:search ──▶ cache ──▶ verdict (SB-8)
 *
 * A list update, as data:
 *
 *   feed ──▶ canonical expressions ──▶ full hashes ──▶ sorted snapshot (version N)
 *        ──▶ diff from the client's version (removal indices + additions) ──Rice (SB-10)──▶ HashList
 *        ──HTTP──▶ client removes, then adds (SB-9) ──▶ checksum verified ──▶ written atomically
 *
 * @packageDocumentation
 * @module sbkit
 */
export * from './url/index.ts';
export * from './client/index.ts';
