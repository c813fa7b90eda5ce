// RFC 4180 records: fields separated by commas; a field in double quotes may hold commas, line breaks
// and quotes written twice (`"a ""b"", c"` is `a "b", c`). PhishTank's export quotes URLs that contain
// commas; URLhaus quotes every field (docs/api.md §4). Readers are lenient the way common CSV tools are: a
// quote inside an unquoted field is an ordinary character, and text after a closing quote is kept.

/** One record read from a CSV text. */
export interface CsvRecord {
  fields: string[];
  /** Where the next record starts: just past this record's line break, or the length of the text. */
  next: number;
  /** Line breaks inside quoted fields, so that callers can keep counting lines. */
  innerLineBreaks: number;
  /** A quoted field was still open at the end of the text (or of the line, when `spanLines` is false). */
  unterminated: boolean;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Reads the record starting at `start`. With `spanLines`, quoted fields may run over line breaks as RFC
 * 4180 allows; without it, every record ends at its line's end, which is how a caller recovers after a
 * stray quote opened a field that never closes (re-reading the rest of the text line by line, so that
 * one bad quote costs one line and the reading stays linear). Work is linear in the record's length.
 */
export function readCsvRecord(text: string, start: number, spanLines: boolean): CsvRecord {
  let limit = text.length;
  if (!spanLines) {
    const lineFeed = text.indexOf('\n', start);
    if (lineFeed >= 0) limit = lineFeed;
  }
  const fields: string[] = [];
  let innerLineBreaks = 0;
  let unterminated = false;
  let i = start;
  for (;;) {
    let value = '';
    if (text.charCodeAt(i) === QUOTE && i < limit) {
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote < 0 || quote >= limit) {
          value += text.slice(from, limit);
          innerLineBreaks += countLineFeeds(text, from, limit);
          unterminated = true;
          i = limit;
          break;
        }
        value += text.slice(from, quote);
        innerLineBreaks += countLineFeeds(text, from, quote);
        if (text.charCodeAt(quote + 1) === QUOTE && quote + 1 < limit) {
          value += '"';
          from = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
    }
    // Unquoted text, or what follows a closing quote, up to the next comma or line break.
    let end = i;
    while (end < limit) {
      const code = text.charCodeAt(end);
      if (code === COMMA || code === LF) break;
      end++;
    }
    const atComma = end < limit && text.charCodeAt(end) === COMMA;
    // The CR of a CRLF line end belongs to the line break, not to the last field.
    const crlf = !atComma && end > i && text.charCodeAt(end - 1) === CR;
    fields.push(value + text.slice(i, crlf ? end - 1 : end));
    if (atComma) {
      i = end + 1;
      continue;
    }
    return { fields, next: end < text.length ? end + 1 : text.length, innerLineBreaks, unterminated };
  }
}

function countLineFeeds(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
