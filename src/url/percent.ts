// Percent-escapes, on "byte strings": JS strings whose every char code is one byte (0..255), which is how
// the URL pipeline carries UTF-8 text so that escaping works on bytes as SB-5 requires.

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

const ESCAPE = /%[0-9a-fA-F]{2}/;
const ESCAPES = /%[0-9a-fA-F]{2}/g;
const decodeEscape = (escape: string) => String.fromCharCode(parseInt(escape.slice(1), 16));

/**
 * SB-5: "repeatedly percent-unescape the URL until it has no more percent-escapes". Real URLs need a
 * pass or two, each a native replace; input nested deeper (`%25252525…`) finishes in one linear pass
 * instead of the quadratic cost of pass after pass.
 */
export function unescapeFully(input: string): string {
  let text = input;
  for (let pass = 0; pass < 3; pass++) {
    if (!ESCAPE.test(text)) return text;
    text = text.replace(ESCAPES, decodeEscape);
  }
  return unescapeInOnePass(text);
}

/**
 * A decoded byte can complete a new escape only together with the bytes already written before it
 * (`%2525` → `%25` → `%`), so checking the tail of the output after every write reaches the same fixed
 * point as unescaping pass after pass.
 */
function unescapeInOnePass(input: string): string {
  const out: number[] = [];
  for (let i = 0; i < input.length; i++) {
    out.push(input.charCodeAt(i));
    let n = out.length;
    while (n >= 3 && out[n - 3] === 0x25) {
      const hi = hexValue(out[n - 2]!);
      const lo = hexValue(out[n - 1]!);
      if (hi < 0 || lo < 0) break;
      out.length = n - 2;
      out[n - 3] = (hi << 4) | lo;
      n -= 2;
    }
  }
  return byteString(out);
}

function byteString(bytes: number[]): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode(...bytes.slice(i, i + 8192));
  }
  return s;
}

const HEX = '0123456789ABCDEF';

function mustEscape(code: number): boolean {
  return code <= 0x20 || code >= 0x7f || code === 0x23 || code === 0x25;
}

// eslint-disable-next-line no-control-regex -- SB-5 escapes every byte up to 0x20, control characters included
const NEEDS_ESCAPING = /[\x00-\x20\x7f-\xff#%]/;

/** SB-5: percent-escape every byte <= 32, >= 127, `#` and `%`, with uppercase hex. */
export function escapeBytes(input: string): string {
  const first = input.search(NEEDS_ESCAPING);
  if (first < 0) return input;
  let out = input.slice(0, first);
  for (let i = first; i < input.length; i++) {
    const code = input.charCodeAt(i);
    out += mustEscape(code) ? `%${HEX[code >> 4]}${HEX[code & 15]}` : input[i];
  }
  return out;
}

/** UTF-8 bytes of a JS string as a byte string; pure ASCII, the common case, is returned as it is. */
export function toByteString(text: string): string {
  // eslint-disable-next-line no-control-regex -- any ASCII, control characters included, is one byte in UTF-8
  return /^[\x00-\x7f]*$/.test(text) ? text : Buffer.from(text, 'utf8').toString('latin1');
}
