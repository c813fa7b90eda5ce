// Base64 as Safe Browsing clients put bytes into URLs (docs/api.md §3): Firefox sends standard base64 with
// padding (`v9APjg==`, percent-encoded by the query string), SB-13 and our client send base64url without
// padding (`WwuJdQ`), Chromium and Firefox wrap whole requests in `$req=` as base64url (Firefox's is
// padded). gRPC transcoding accepts either alphabet for bytes, so we do too, padded or not, and nothing
// else.

import { WireError } from './wire-error.ts';
import { latin1OfBytes } from '../url/byte-string.ts';

/** Node's Buffer, whose base64 is native, where there is one; decodeBase64Into and btoa elsewhere. Never imported. */
const nodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** A character in neither alphabet, in SEXTETS; above every sextet, so that OR-ing sextets keeps it. */
const NOT_BASE64 = 64;
/** The six bits each character code below 128 stands for in either alphabet, NOT_BASE64 for any other. */
function sextetTable(): Uint8Array {
  const table = new Uint8Array(128).fill(NOT_BASE64);
  for (const [i, character] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'].entries()) {
    table[character.charCodeAt(0)] = i;
  }
  table[0x2b] = table[0x2d] = 62; // + and -
  table[0x2f] = table[0x5f] = 63; // / and _
  return table;
}
// Built by a call marked pure, so that a bundle that only encodes (the browser's) leaves the table out.
const SEXTETS = /* @__PURE__ */ sextetTable();

function sextet(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code < 128 ? SEXTETS[code]! : NOT_BASE64;
}

/** The bytes `characters` characters of base64 without padding stand for (a lone last character stands for none). */
export function base64ByteLength(characters: number): number {
  return (characters * 3) >>> 2;
}

/**
 * Reads the characters of `text` from `from` up to `to`, base64 or base64url without padding, into
 * `bytes` (base64ByteLength of them long), in place: no substring, no Buffer, and no array of a size
 * known only here, which costs the hot path more than the decoding. Bits after the last whole byte are
 * ignored, as Buffer's and atob's decoders ignore them. False when a character is in neither alphabet
 * or a lone character ends the text (it cannot carry a whole byte). For the hot path that has checked
 * its text already (wire/protobuf/search-request-fast.ts), and for decodeBase64 where Node's decoder is
 * not there.
 */
export function decodeBase64Into(text: string, from: number, to: number, bytes: Uint8Array): boolean {
  const length = to - from;
  if (bytes.length !== base64ByteLength(length)) throw new RangeError(`${length} characters of base64 are not ${bytes.length} bytes`);
  if (length % 4 === 1) return false;
  let seen = 0;
  let out = 0;
  let at = from;
  for (; at + 4 <= to; at += 4) {
    const a = sextet(text, at);
    const b = sextet(text, at + 1);
    const c = sextet(text, at + 2);
    const d = sextet(text, at + 3);
    seen |= a | b | c | d;
    const group = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[out++] = (group >>> 16) & 0xff;
    bytes[out++] = (group >>> 8) & 0xff;
    bytes[out++] = group & 0xff;
  }
  // Two or three characters left: one or two bytes, the group's missing characters taken as zero.
  const rest = to - at;
  if (rest > 0) {
    const a = sextet(text, at);
    const b = sextet(text, at + 1);
    const c = rest === 3 ? sextet(text, at + 2) : 0;
    seen |= a | b | c;
    const group = (a << 18) | (b << 12) | (c << 6);
    bytes[out] = (group >>> 16) & 0xff;
    if (rest === 3) bytes[out + 1] = (group >>> 8) & 0xff;
  }
  return (seen & NOT_BASE64) === 0;
}

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
  const bytes = new Uint8Array(base64ByteLength(unpadded.length));
  // The checks above leave it nothing to refuse.
  decodeBase64Into(unpadded, 0, unpadded.length, bytes);
  return bytes;
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
