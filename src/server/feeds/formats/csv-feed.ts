import { readCsvRecord } from './csv.ts';
import { hostExpression, urlExpression } from './entry-expression.ts';
import { badEntryReason, type FeedCollector } from '../feed-collector.ts';
import { BadEntryError, FeedFormatError } from '../feed-error.ts';
import { firstVisible, lineAt, lineEnd, LINES_PER_STEP } from './feed-lines.ts';

/**
 * CSV feeds (docs/api.md §4): `csv` has a URL column — URLhaus exports (`#` notes, then the header as a
 * comment, `# id,dateadded,url,…`, then quoted rows) and PhishTank's `online-valid.csv` (header row
 * `phish_id,url,…`, quoted URLs with commas); `domains` has a domain column — Tranco's `rank,domain` rows
 * without a header, or lists with a header naming a `domain` column.
 */
export type CsvFeedKind = 'csv' | 'domains';

/** A column by its header name (case-insensitive) or its 0-based index. */
export type CsvColumn = string | number;

const HEADER_NAMES: Record<CsvFeedKind, string> = { csv: 'url', domains: 'domain' };
const WHAT: Record<CsvFeedKind, string> = { csv: 'URL', domains: 'domain' };

function columnNamed(fields: readonly string[], name: string): number {
  return fields.findIndex((field) => field.trim().toLowerCase() === name);
}

/**
 * The column to use when no header named one: an index from the options; for `domains`, the second
 * field of `rank,domain` rows (Tranco, Umbrella) or the only field of a plain list. A `csv` feed without
 * a header has no column one could trust, so the whole feed is refused with what to configure.
 */
function columnWithoutHeader(kind: CsvFeedKind, option: CsvColumn | undefined, fieldCount: number, line: number): number {
  if (typeof option === 'number') return option;
  if (typeof option === 'string') {
    throw new FeedFormatError(
      `line ${line}: no header row or "#" header comment before the first row names a column ${JSON.stringify(option)}; fix csvColumn or the feed`,
    );
  }
  if (kind === 'domains') return fieldCount >= 2 ? 1 : 0;
  throw new FeedFormatError(
    `line ${line}: no header row or "#" header comment before the first row names a "url" column; set csvColumn to the URL column's name or 0-based index`,
  );
}

/**
 * Adds the entries of a CSV feed to the collector, reporting rows that give no expression; yields after
 * every LINES_PER_STEP lines or so, where whoever drives it may pause.
 */
export function* csvFeedSteps(
  text: string,
  kind: CsvFeedKind,
  option: CsvColumn | undefined,
  collector: FeedCollector,
): Generator<void, void, undefined> {
  const headerName = typeof option === 'string' ? option.trim().toLowerCase() : HEADER_NAMES[kind];
  let column = typeof option === 'number' ? option : undefined;
  // A header is looked for until the first data row, in comment lines (URLhaus) and in the first row
  // (PhishTank). It is recognised even when an index was given, so that it never becomes an entry.
  let lookingForHeader = true;
  let spanLines = true;
  let line = 1;
  let start = 0;
  let nextStep = LINES_PER_STEP;
  while (start < text.length) {
    if (line >= nextStep) {
      nextStep = line + LINES_PER_STEP;
      yield;
    }
    const end = lineEnd(text, start);
    const raw = lineAt(text, start, end);
    const first = firstVisible(raw);
    if (first < 0 || raw.charCodeAt(first) === 0x23) {
      if (first >= 0 && lookingForHeader) {
        const index = columnNamed(readCsvRecord(raw, first + 1, false).fields, headerName);
        if (index >= 0) {
          lookingForHeader = false;
          column ??= index;
        }
      }
      start = end + 1;
      line++;
      continue;
    }

    let record = readCsvRecord(text, start, spanLines);
    if (record.unterminated && spanLines) {
      // An unclosed quote ran to the end of the text: from here on a record never spans lines.
      spanLines = false;
      record = readCsvRecord(text, start, false);
    }
    const recordLine = line;
    const recordStart = start;
    line += 1 + record.innerLineBreaks;
    start = record.next;
    const recordEnd = text.charCodeAt(record.next - 1) === 0x0a ? record.next - 1 : record.next;

    if (record.unterminated) {
      collector.line();
      collector.bad(
        recordLine,
        lineAt(text, recordStart, recordEnd),
        'a quoted field is never closed (RFC 4180: a field in quotes ends with a quote)',
      );
      continue;
    }
    if (lookingForHeader) {
      lookingForHeader = false;
      const index = columnNamed(record.fields, headerName);
      if (index >= 0) {
        column ??= index;
        continue;
      }
    }
    column ??= columnWithoutHeader(kind, option, record.fields.length, recordLine);
    collector.line();
    try {
      const value = record.fields[column]?.trim();
      if (value === undefined) {
        throw new BadEntryError(`the row has ${record.fields.length} field(s); the ${WHAT[kind]} is in column ${column} (0-based)`);
      }
      if (value === '') throw new BadEntryError(`the ${WHAT[kind]} column is empty`);
      collector.add(kind === 'csv' ? urlExpression(value) : hostExpression(value));
    } catch (error) {
      collector.bad(recordLine, lineAt(text, recordStart, recordEnd), badEntryReason(error));
    }
  }
}
