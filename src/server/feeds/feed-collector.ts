import { InvalidUrlError } from '../../url/invalid-url.ts';
import { BadEntryError } from './feed-error.ts';

/** A feed line (or CSV record) that could not become an expression, as reported to the operator. */
export interface BadLine {
  /** 1-based line number in the feed; for a CSV record spanning lines, the line it starts on. */
  line: number;
  /** The line as read, shortened to MAX_BAD_LINE_TEXT characters. */
  text: string;
  reason: string;
}

/** What a feed yields: its entries as canonical expressions, and what could not be used. */
export interface ParsedFeed {
  /** Canonical Safe Browsing expressions (SB-5, SB-6), without duplicates, in first-seen order. */
  expressions: string[];
  /** The first MAX_REPORTED_BAD_LINES bad lines; badLineCount has them all. */
  badLines: BadLine[];
  badLineCount: number;
  /** Lines (CSV records) that held an entry, good or bad: neither blank, a comment nor a header. */
  lineCount: number;
  /** Entries that became an expression, duplicates included (so entryCount - expressions.length repeat). */
  entryCount: number;
}

/** Enough examples to see what is wrong with a feed, few enough to log. */
export const MAX_REPORTED_BAD_LINES = 100;
/** Feed lines can be megabytes long; a report shows their start. */
export const MAX_BAD_LINE_TEXT = 200;

/** Gathers the expressions and bad lines of one feed as its parser walks through it. */
export class FeedCollector {
  private readonly seen = new Set<string>();
  private readonly badLines: BadLine[] = [];
  private badLineCount = 0;
  private lineCount = 0;
  private entryCount = 0;

  /** A line (CSV record) holding an entry was read; add() and bad() follow for what it held. */
  line(): void {
    this.lineCount++;
  }

  add(expression: string): void {
    this.entryCount++;
    this.seen.add(expression);
  }

  bad(line: number, text: string, reason: string): void {
    this.badLineCount++;
    if (this.badLines.length >= MAX_REPORTED_BAD_LINES) return;
    const shown = text.length > MAX_BAD_LINE_TEXT ? `${text.slice(0, MAX_BAD_LINE_TEXT)}…` : text;
    this.badLines.push({ line, text: shown, reason });
  }

  result(): ParsedFeed {
    // A Set iterates in insertion order: first-seen order for free.
    return {
      expressions: [...this.seen],
      badLines: this.badLines,
      badLineCount: this.badLineCount,
      lineCount: this.lineCount,
      entryCount: this.entryCount,
    };
  }
}

/**
 * The reason to report for an entry that failed to convert. Only the errors that describe bad input are
 * reasons; anything else is a bug and is thrown on, never hidden as a bad line.
 */
export function badEntryReason(error: unknown): string {
  if (error instanceof InvalidUrlError || error instanceof BadEntryError) return error.message;
  throw error;
}
