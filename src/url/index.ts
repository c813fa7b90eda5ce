/**
 * `sbkit/url`: the URL pipeline of Safe Browsing, pure and synchronous, with no I/O.
 *
 *   URL ──canonicalizeUrl (SB-5)──▶ canonical URL ──urlExpressions (SB-6)──▶ ≤ 30 expressions
 *       ──expressionHash (SB-7)──▶ SHA-256 full hashes ──hashPrefix──▶ 4-byte prefixes
 *
 * @packageDocumentation
 * @module sbkit/url
 */
export { canonicalizeUrl, parseCanonicalUrl, formatCanonicalUrl, type CanonicalUrl } from './canonicalize.ts';
export { urlExpressions, expressionsOf } from './expressions.ts';
export { expressionHash, hashPrefix } from './hash.ts';
export { InvalidUrlError, type InvalidUrlReason } from './invalid-url.ts';
