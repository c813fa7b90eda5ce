// A Logger (src/server/logger.ts) that keeps each line with its level, for the tests that read what a
// part logged and at which level.

import type { LogFields, Logger } from '../../src/server/logger.ts';

export type LevelName = 'error' | 'warn' | 'info' | 'debug';

/** One line as logged. */
export interface RecordedLine {
  level: LevelName;
  message: string;
  fields: LogFields | undefined;
}

/** A logger keeping its lines in `lines`, oldest first. */
export class RecordingLogger implements Logger {
  readonly lines: RecordedLine[] = [];

  /** The messages logged, at `level` only when given. */
  messages(level?: LevelName): string[] {
    return this.lines.filter((line) => level === undefined || line.level === level).map((line) => line.message);
  }

  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', message, fields });
  }

  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', message, fields });
  }

  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', message, fields });
  }

  debug(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'debug', message, fields });
  }
}
