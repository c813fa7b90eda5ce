import { allocBytes, latin1OfBytes, utf8ByteString } from './byte-string.ts';

// Percent-escapes, on "byte strings": JS strings whose every char code is one byte (0..255), which is how
// the URL pipeline carries UTF-8 text so that escaping works on bytes as SB-5 requires.

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * Output bytes reused from call to call (the pipeline is synchronous), grown as needed; a URL longer
 * than 64 KiB gets a buffer of its own, so that one odd URL does not keep megabytes alive.
 */
let scratch = allocBytes(1024);
const MAX_KEPT_SCRATCH = 64 * 1024;

function scratchFor(length: number): Uint8Array {
  if (length <= scratch.length) return scratch;
  const bytes = allocBytes(length);
  if (length <= MAX_KEPT_SCRATCH) scratch = bytes;
  return bytes;
}

/**
 * SB-5: "repeatedly percent-unescape the URL until it has no more percent-escapes", in one pass over
 * the bytes of a byte string. A decoded byte can complete a new escape only together with the bytes
 * already written before it (`%2525` → `%25` → `%`), so checking the tail of the output after every
 * write reaches the same fixed point as unescaping pass after pass, in linear time even for input
 * nested deep (`%25252525…`).
 */
export function unescapeFully(input: string): string {
  const first = input.indexOf('%');
  if (first < 0) return input;
  const out = scratchFor(input.length - first);
  let n = 0;
  for (let i = first; i < input.length; i++) {
    out[n++] = input.charCodeAt(i);
    while (n >= 3 && out[n - 3] === 0x25) {
      const hi = hexValue(out[n - 2]!);
      const lo = hexValue(out[n - 1]!);
      if (hi < 0 || lo < 0) break;
      out[n - 3] = (hi << 4) | lo;
      n -= 2;
    }
  }
  // Bytes are latin1 characters one for one: that is what a byte string is.
  return input.slice(0, first) + latin1OfBytes(out, 0, n);
}

const HEX = '0123456789ABCDEF';

function mustEscape(code: number): boolean {
  return code <= 0x20 || code >= 0x7f || code === 0x23 || code === 0x25;
}

// eslint-disable-next-line no-control-regex -- SB-5 escapes every byte up to 0x20, control characters included
const NEEDS_ESCAPING = /[\x00-\x20\x7f-\xff#%]/;

/**
 * SB-5: percent-escape every byte <= 32, >= 127, `#` and `%`, with uppercase hex. Most parts need none,
 * which a regular expression finds out twice as fast as a loop over the characters; the bytes that
 * need escaping are then escaped in runs, one concatenation per escape.
 */
export function escapeBytes(input: string): string {
  const first = input.search(NEEDS_ESCAPING);
  if (first < 0) return input;
  let out = '';
  let run = 0;
  for (let i = first; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (!mustEscape(code)) continue;
    out += `${input.slice(run, i)}%${HEX[code >> 4]}${HEX[code & 15]}`;
    run = i + 1;
  }
  return out + input.slice(run);
}

/** UTF-8 bytes of a JS string as a byte string; pure ASCII, the common case, is returned as it is. */
export function toByteString(text: string): string {
  // eslint-disable-next-line no-control-regex -- any ASCII, control characters included, is one byte in UTF-8
  return /^[\x00-\x7f]*$/.test(text) ? text : utf8ByteString(text);
}
