// What a feed's server sends is not the operator's text: it reaches logs, terminals and the answer of
// /admin/reload only as a short excerpt whose control and formatting characters are escaped, so that a
// feed cannot write terminal escape sequences, forge log lines, reverse text with bidi controls, or flood
// a log with megabytes of one line.

/** The longest excerpt, escapes, quotes and the closing ellipsis included. */
export const MAX_EXCERPT_LENGTH = 80;

/** Controls, format characters (bidi, zero-width, BOM), line and paragraph separators, lone surrogates. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** One character as shown; a backslash doubled (and a quote escaped in quotes), so that no escape can be faked. */
function escaped(character: string, quoted: boolean): string {
  if (character === '\\') return '\\\\';
  if (quoted && character === '"') return '\\"';
  if (!UNSAFE.test(character)) return character;
  const code = character.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

function shortened(text: string, max: number, quoted: boolean): string {
  const pieces: string[] = [];
  let length = 0;
  // Only the start is looked at: a line may be megabytes long, and max code points fit in 2 × max code units.
  for (const character of text.slice(0, max * 2)) {
    const piece = escaped(character, quoted);
    pieces.push(piece);
    length += piece.length;
    if (length > max) break;
  }
  if (length <= max && text.length <= max * 2) return pieces.join('');
  let shown = '';
  for (const piece of pieces) {
    if (shown.length + piece.length > max - 1) break;
    shown += piece;
  }
  return `${shown}…`;
}

/**
 * `text` as it may be shown: unsafe characters escaped (`\x1b`, `\u{202e}`), cut to at most `max`
 * characters, the last of them `…` when anything was left out.
 */
export function excerpt(text: string, max: number = MAX_EXCERPT_LENGTH): string {
  return shortened(text, max, false);
}

/** The excerpt in double quotes (quotes inside escaped), as messages quote what a feed sent; at most `max` characters. */
export function quotedExcerpt(text: string, max: number = MAX_EXCERPT_LENGTH): string {
  return `"${shortened(text, max - 2, true)}"`;
}
