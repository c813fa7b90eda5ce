// The log of `sbkit serve`: pino's JSON lines (level, time, msg and the line's fields), one per line on
// standard error, for journald and log collectors; the same lines made readable on a terminal
// (pretty-log-line.ts). The server's parts log through the Logger interface of server/logger.ts.

import type { Command } from 'commander';
import type { LogFields, Logger } from '../server/logger.ts';
import type { CliIo } from './io.ts';
import { UsageError } from './io.ts';
import { prettyLogLine } from './pretty-log-line.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['json', 'pretty'] as const;

/** The flags of {@link withLogFlags}. */
export interface LogFlags {
  logLevel: string;
  logFormat?: string;
  /** With --access-log. */
  accessLog?: boolean;
}

/** `command` with the flags of its log. */
export function withLogFlags(command: Command): Command {
  return command
    .option('--log-level <level>', `least level logged: ${LOG_LEVELS.join(', ')}`, 'info')
    .option('--log-format <format>', 'json (JSON lines) or pretty (readable lines); default: pretty on a terminal, json otherwise')
    .option(
      '--access-log',
      'log a line per request: method, route pattern, status, duration, client class, request id (never a URL or its query)',
    );
}

/** The service's logger, and `fatal` for what ends the command. */
export interface ServeLog extends Logger {
  fatal(message: string, fields?: LogFields): void;
  /** Whether the lines are for a person (pretty) rather than for a collector (JSON). */
  readonly pretty: boolean;
}

/**
 * The log `--log-level` and `--log-format` ask for; UsageError for a value that is neither. Without
 * `--log-format`: pretty when standard error is a terminal, JSON lines otherwise.
 */
export async function serveLog(io: CliIo, { logLevel: level, logFormat: format }: LogFlags): Promise<ServeLog> {
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new UsageError(`--log-level is one of ${LOG_LEVELS.join(', ')}, not "${level}"`);
  }
  if (format !== undefined && !(LOG_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--log-format is json or pretty, not "${format}"`);
  }
  const pretty = (format ?? (io.interactive ? 'pretty' : 'json')) === 'pretty';
  // Loaded when the command runs: `sbkit --help` and the other commands load none of the server's packages.
  const { pino } = await import('pino');
  const logger = pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Labels rather than pino's numbers: what a person grepping journald or a collector's query expects.
      formatters: { level: (label) => ({ level: label }) },
    },
    { write: (line: string) => io.err(pretty ? prettyLogLine(line) : line) },
  );
  const at =
    (method: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (fields === undefined) logger[method](message);
      else logger[method](fields, message);
    };
  return { fatal: at('fatal'), error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), pretty };
}
