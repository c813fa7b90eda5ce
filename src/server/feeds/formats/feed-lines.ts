// Feeds are text files of lines (docs/api.md §4). Downloads arrive with CRLF line ends (RFC 4180 asks for
// them in CSV) and Windows editors add a UTF-8 byte order mark; neither may end up inside an entry.

const BYTE_ORDER_MARK = 0xfeff;

/** The text without a leading byte order mark. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

/** Index of the `\n` that ends the line starting at `start`, or the text's length for the last line. */
export function lineEnd(text: string, start: number): number {
  const end = text.indexOf('\n', start);
  return end < 0 ? text.length : end;
}

/** The line from `start` to `end` (a `\n` or the end of the text), without the `\r` of a CRLF. */
export function lineAt(text: string, start: number, end: number): string {
  return end > start && text.charCodeAt(end - 1) === 0x0d ? text.slice(start, end - 1) : text.slice(start, end);
}

/**
 * Index of the first character of `line` that is not a space or control character, or -1 for a blank
 * line. The same bytes SB-5 trims from URLs, so a line is blank exactly when it holds no URL.
 */
export function firstVisible(line: string): number {
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) > 0x20) return i;
  return -1;
}

/** Blank lines and `#` comments carry no entry in any feed format of docs/api.md §4. */
export function isBlankOrComment(line: string): boolean {
  const first = firstVisible(line);
  return first < 0 || line.charCodeAt(first) === 0x23;
}

/** Lines between the points where a long parse may give the event loop a turn (time/event-loop-turns.ts). */
export const LINES_PER_STEP = 1024;

/**
 * Calls `visit` with every line of the text and its 1-based number, in one pass, yielding after every
 * LINES_PER_STEP lines: the points where whoever drives it may pause.
 */
export function* eachLine(text: string, visit: (line: string, number: number) => void): Generator<void, void, undefined> {
  let number = 1;
  for (let start = 0; start < text.length; number++) {
    const end = lineEnd(text, start);
    visit(lineAt(text, start, end), number);
    start = end + 1;
    if (number % LINES_PER_STEP === 0) yield;
  }
}
