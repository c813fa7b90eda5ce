// The `sources` of a list in the server configuration (docs/configuration.md#sources): each a `file`, a
// `url` or inline `entries`, the format its lines are read in, and its own refresh interval and bounds.

import { resolve } from 'node:path';
import { ConfigError } from './config-error.ts';
import {
  expectArrayOf,
  expectKnownFields,
  expectNumber,
  expectObject,
  expectString,
  fieldOf,
  type JsonObject,
  optionalBoolean,
  optionalNumber,
} from './config-fields.ts';
import type { CsvColumn } from '../feeds/formats/csv-feed.ts';
import { FEED_FORMATS, type FeedFormat } from '../feeds/formats/feed-formats.ts';
import { parseSourceLimits, type SourceLimits } from './feed-limits-config.ts';

interface FeedReading {
  format: FeedFormat;
  /** Only for the `csv` and `domains` formats. */
  csvColumn: CsvColumn | undefined;
  /** How the status page and metrics name the source, when the operator gave it a name. */
  name?: string;
}

interface FileSource extends FeedReading, SourceLimits {
  kind: 'file';
  /** Absolute: relative paths are resolved against the configuration file's folder. */
  path: string;
  /** Minutes between reloads, or undefined to load at start and on an operator's reload only. */
  refreshMinutes: number | undefined;
}

interface UrlSource extends FeedReading, SourceLimits {
  kind: 'url';
  /** An http: or https: URL. */
  url: string;
  refreshMinutes: number;
  /** Present when the operator lets this feed and its redirects reach loopback and private addresses (source-reader.ts). */
  allowPrivateAddresses?: true;
  /** Whole download, redirects included, in ms. */
  timeoutMs?: number;
}

interface EntriesSource extends FeedReading {
  kind: 'entries';
  /** One entry per element, read like the lines of a feed in `format`. */
  entries: string[];
}

export type SourceConfig = FileSource | UrlSource | EntriesSource;

const DEFAULT_URL_REFRESH_MINUTES = 60;
/** A week: far beyond any feed's publishing cycle, and well inside what Node timers hold (24.8 days). */
const MAX_REFRESH_MINUTES = 7 * 24 * 60;
const SOURCE_KINDS = ['file', 'url', 'entries'] as const;
const READING_FIELDS = ['format', 'csvColumn', 'name'] as const;
/** A source's name is a metric label and a word on the status page: short, plain. */
const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * One source of a list, `field` where it stands (for errors); a file's path is resolved against `baseDir`.
 *
 * @throws ConfigError naming the first bad field.
 */
export function parseSource(value: unknown, field: string, baseDir: string): SourceConfig {
  const source = expectObject(value, field);
  const kinds = SOURCE_KINDS.filter((kind) => source[kind] !== undefined);
  if (kinds.length !== 1) {
    throw new ConfigError(
      field,
      `needs exactly one of "file", "url" and "entries"${kinds.length > 1 ? `, not ${kinds.join(' and ')}` : ''}`,
    );
  }
  const kind = kinds[0]!;
  const kindFields = {
    file: ['refreshMinutes', 'maxMegabytes', 'maxEntries'],
    url: ['refreshMinutes', 'allowPrivateAddresses', 'timeoutSeconds', 'maxMegabytes', 'maxEntries'],
    entries: [],
  }[kind];
  expectKnownFields(source, [kind, ...READING_FIELDS, ...kindFields], field);
  const reading = parseReading(source, field, kind === 'entries' ? 'expressions' : undefined);
  const refreshMinutes = optionalNumber(source, 'refreshMinutes', field, { min: 1, max: MAX_REFRESH_MINUTES });

  const { timeoutMs, ...limits } = parseSourceLimits(source, field);

  switch (kind) {
    case 'file':
      return { kind, path: resolve(baseDir, expectString(source.file, fieldOf(field, 'file'))), ...reading, ...limits, refreshMinutes };
    case 'url':
      return {
        kind,
        url: parseFeedUrl(source.url, fieldOf(field, 'url')),
        ...reading,
        ...limits,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        refreshMinutes: refreshMinutes ?? DEFAULT_URL_REFRESH_MINUTES,
        ...(optionalBoolean(source, 'allowPrivateAddresses', field) === true ? { allowPrivateAddresses: true } : {}),
      };
    case 'entries':
      return { kind, entries: parseEntries(source.entries, fieldOf(field, 'entries')), ...reading };
  }
}

function parseReading(source: JsonObject, field: string, defaultFormat: FeedFormat | undefined): FeedReading {
  const formatField = fieldOf(field, 'format');
  if (source.format === undefined && defaultFormat === undefined) {
    throw new ConfigError(formatField, `is required: one of ${FEED_FORMATS.join(', ')}`);
  }
  const format = source.format === undefined ? defaultFormat : source.format;
  if (!FEED_FORMATS.includes(format as FeedFormat)) {
    throw new ConfigError(formatField, `must be one of ${FEED_FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  }
  const columnField = fieldOf(field, 'csvColumn');
  let csvColumn: CsvColumn | undefined;
  if (source.csvColumn !== undefined) {
    if (format !== 'csv' && format !== 'domains') {
      throw new ConfigError(columnField, `only csv and domains feeds have columns; this source's format is ${JSON.stringify(format)}`);
    }
    csvColumn =
      typeof source.csvColumn === 'number'
        ? expectNumber(source.csvColumn, columnField, { min: 0, max: 10_000, integer: true })
        : expectString(source.csvColumn, columnField);
  }
  const nameField = fieldOf(field, 'name');
  const name = source.name === undefined ? undefined : expectString(source.name, nameField);
  if (name !== undefined && !SOURCE_NAME.test(name)) {
    throw new ConfigError(
      nameField,
      'must be 1 to 64 letters, digits, ".", "_" and "-", starting with a letter or digit (it labels metrics)',
    );
  }
  return { format: format as FeedFormat, csvColumn, ...(name === undefined ? {} : { name }) };
}

function parseFeedUrl(value: unknown, field: string): string {
  const text = expectString(value, field);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(field, `${JSON.stringify(text)} is not an absolute URL; a file path goes in "file"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(field, `must be an http: or https: URL, not ${url.protocol}; a local file goes in "file"`);
  }
  return url.href;
}

/** Inline entries are feed lines, so each must be one line. */
function parseEntries(value: unknown, field: string): string[] {
  return expectArrayOf(value, field, (entry, at) => {
    const text = expectString(entry, at);
    if (/[\r\n]/.test(text)) throw new ConfigError(at, 'must be one line: put each entry in its own string');
    return text;
  });
}
