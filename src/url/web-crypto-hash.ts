import type { ExpressionHasher } from './expression-hasher.ts';
import { latin1OfBytes } from './byte-string.ts';
import { sha256Portable } from './sha256.ts';

const encoder = new TextEncoder();

/**
 * SB-7 through WebCrypto (`crypto.subtle.digest`), for browsers, extensions, workers and edge runtimes.
 * Every digest of a batch is started at once and awaited together. Expressions are printable ASCII
 * after SB-5 escaping, so their UTF-8 bytes are the bytes SB-7 hashes. Browsers give WebCrypto to
 * secure contexts only (https, localhost, extensions): a page served over plain http hashes in
 * JavaScript instead, synchronously.
 */
export const webCryptoHasher: ExpressionHasher = {
  hashAll(expressions) {
    const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
    if (subtle === undefined) return expressions.map((expression) => latin1OfBytes(sha256Portable(encoder.encode(expression))));
    return Promise.all(expressions.map((expression) => subtle.digest('SHA-256', encoder.encode(expression)))).then((digests) =>
      digests.map((digest) => latin1OfBytes(new Uint8Array(digest))),
    );
  },
};
