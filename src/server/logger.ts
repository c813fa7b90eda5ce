// Where the server's parts tell what they do and what fails, each line at a level: `sbkit serve` writes
// them as JSON lines or readable lines (cli/serve-log.ts); a program using sbkit/server passes its own
// logger (pino's fits as it is adapted there), or a plain function of the message, as before levels.

/** Facts that go with a message, as fields of its JSON line: never prefixes, URLs or keys of a client. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** What the server's parts log through. */
export interface Logger {
  /** Something failed and is not retried on its own: a refused configuration, a part that cannot work. */
  error(message: string, fields?: LogFields): void;
  /** Something failed or is off and the server goes on: a feed that did not load, Redis away. */
  warn(message: string, fields?: LogFields): void;
  /** What the server did: listening, a list published, a reload done. */
  info(message: string, fields?: LogFields): void;
  /** Details for finding a fault. */
  debug(message: string, fields?: LogFields): void;
}

/** A logger, or a function given every message whatever its level (the form of sbkit 0.2). */
export type LogSink = Logger | ((message: string) => void);

const SILENT: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** `sink` as a logger: a function gets every line; none, nothing is logged. */
export function loggerOf(sink: LogSink | undefined): Logger {
  if (sink === undefined) return SILENT;
  if (typeof sink !== 'function') return sink;
  const write = (message: string) => sink(message);
  return { error: write, warn: write, info: write, debug: write };
}
