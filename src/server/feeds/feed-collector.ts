import { InvalidUrlError } from '../../url/invalid-url.ts';
import { excerpt, MAX_EXCERPT_LENGTH, quotedExcerpt } from './formats/excerpt.ts';
import { BadEntryError, FeedEntryLimitError } from './feed-error.ts';

/** A feed line (or CSV record) that could not become an expression, as reported to the operator. */
export interface BadLine {
  /** 1-based line number in the feed; for a CSV record spanning lines, the line it starts on. */
  line: number;
  /** The line as read, as an excerpt (excerpt.ts): at most MAX_BAD_LINE_TEXT characters, controls escaped. */
  text: string;
  /** Why it is no entry; what it quotes of the line is an excerpt too. */
  reason: string;
}

/** What a feed held besides its entries: how many lines, and what could not be used. */
export interface FeedTally {
  /** The first MAX_REPORTED_BAD_LINES bad lines; badLineCount has them all. */
  badLines: BadLine[];
  badLineCount: number;
  /** Lines (CSV records) that held an entry, good or bad: neither blank, a comment nor a header. */
  lineCount: number;
  /** Entries that became an expression, duplicates included (so entryCount - expressions.length repeat). */
  entryCount: number;
}

/** What a feed yields: its entries as canonical expressions, and what could not be used. */
export interface ParsedFeed extends FeedTally {
  /** Canonical Safe Browsing expressions (SB-5, SB-6), without duplicates, in first-seen order. */
  expressions: string[];
}

/** Enough examples to see what is wrong with a feed, few enough to log. */
export const MAX_REPORTED_BAD_LINES = 100;
/** Feed lines can be megabytes long, and are a feed server's words: a report shows an excerpt of their start. */
export const MAX_BAD_LINE_TEXT = MAX_EXCERPT_LENGTH;

/**
 * Gathers the expressions and bad lines of one feed as its parser walks through it. `keep` takes each
 * expression (repeats included); past `maxEntries` entries the feed is refused (FeedEntryLimitError), so
 * that what one feed may cost is known before it is read.
 */
export class FeedCollector {
  private readonly badLines: BadLine[] = [];
  private badLineCount = 0;
  private lineCount = 0;
  private entryCount = 0;
  /** Lines before the text being read: a feed read a slice at a time (feed-part.ts) numbers its bad lines in the whole. */
  lineOffset = 0;

  constructor(
    private readonly keep: (expression: string) => void,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  /** A line (CSV record) holding an entry was read; add() and bad() follow for what it held. */
  line(): void {
    this.lineCount++;
  }

  add(expression: string): void {
    if (++this.entryCount > this.maxEntries) throw new FeedEntryLimitError(this.maxEntries);
    this.keep(expression);
  }

  bad(line: number, text: string, reason: string): void {
    this.badLineCount++;
    if (this.badLines.length >= MAX_REPORTED_BAD_LINES) return;
    this.badLines.push({ line: line + this.lineOffset, text: excerpt(text, MAX_BAD_LINE_TEXT), reason });
  }

  tally(): FeedTally {
    return { badLines: this.badLines, badLineCount: this.badLineCount, lineCount: this.lineCount, entryCount: this.entryCount };
  }
}

/**
 * The reason to report for an entry that failed to convert. Only the errors that describe bad input are
 * reasons; anything else is a bug and is thrown on, never hidden as a bad line.
 */
export function badEntryReason(error: unknown): string {
  // InvalidUrlError quotes 200 characters of the line as they are; a report quotes an excerpt.
  if (error instanceof InvalidUrlError) return `invalid URL ${quotedExcerpt(error.input)}: ${excerpt(error.detail)}`;
  if (error instanceof BadEntryError) return error.message;
  throw error;
}
