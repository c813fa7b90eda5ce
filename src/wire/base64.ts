// Base64 as Safe Browsing clients put bytes into URLs (docs/api.md §3): Firefox sends standard base64 with
// padding (`v9APjg==`, percent-encoded by the query string), SB-13 and our client send base64url without
// padding (`WwuJdQ`), Chromium and Firefox wrap whole requests in `$req=` as base64url (Firefox's is
// padded). gRPC transcoding accepts either alphabet for bytes, so we do too, padded or not, and nothing
// else.

import { WireError } from './wire-error.ts';
import { bytesOfLatin1, latin1OfBytes } from '../url/byte-string.ts';

/** Node's Buffer, whose base64 is native, where there is one; atob and btoa elsewhere. Never imported. */
const nodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

// Either alphabet (mixing them is harmless), then at most two padding characters.
const BASE64_TEXT = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Decodes standard base64 or base64url, padded or not. `what` names the value in the error message
 * (e.g. `hashPrefixes[2]`).
 */
export function decodeBase64(text: string, what: string): Uint8Array {
  if (!BASE64_TEXT.test(text)) {
    const bad = text.search(/[^A-Za-z0-9+/_=-]/);
    const problem =
      bad >= 0
        ? `character ${JSON.stringify(text[bad])} at offset ${bad} is in neither the base64 (A-Z a-z 0-9 + /) nor the base64url (- _) alphabet`
        : '"=" padding may only end the text, at most twice';
    throw new WireError('INVALID_ARGUMENT', `${what} is not valid base64: ${problem}`);
  }
  const unpadded = text.replace(/=+$/, '');
  // A single character after full groups of four cannot carry a whole byte.
  if (unpadded.length % 4 === 1) {
    throw new WireError(
      'INVALID_ARGUMENT',
      `${what} is not valid base64: its length (${unpadded.length} characters without padding) cannot encode whole bytes`,
    );
  }
  // Padding is optional, but when present it must complete the last group of four.
  const padding = text.length - unpadded.length;
  if (padding > 0 && (unpadded.length + padding) % 4 !== 0) {
    throw new WireError(
      'INVALID_ARGUMENT',
      `${what} is not valid base64: ${padding} "=" do not complete its last group of four characters`,
    );
  }
  // Node's base64 decoder accepts both alphabets; the checks above leave it nothing to skip silently.
  if (nodeBuffer !== undefined) return new Uint8Array(nodeBuffer.from(unpadded, 'base64'));
  const standard = unpadded.replaceAll('-', '+').replaceAll('_', '/');
  return bytesOfLatin1(atob(standard + '='.repeat((4 - (standard.length % 4)) % 4)));
}

/** base64url without padding: safe in a query string without percent-encoding (SB-13). */
export function encodeBase64Url(bytes: Uint8Array): string {
  if (nodeBuffer !== undefined) return nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  return encodeBase64(bytes).replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
}

/** Standard base64 with padding, as people and tools read versions. */
export function encodeBase64(bytes: Uint8Array): string {
  if (nodeBuffer !== undefined) return nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return btoa(latin1OfBytes(bytes));
}
