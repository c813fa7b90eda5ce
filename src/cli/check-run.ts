// What `sbkit check` runs: URLs from the arguments and standard input, in batches, through the client.

import { createInterface } from 'node:readline';
import { SEARCH_PREFIXES_PER_REQUEST } from '../client/hash-searcher.ts';
import { UnknownListError } from '../lists/unknown-list-error.ts';
import { type CheckResult, SafeBrowsingClient } from '../client/safe-browsing-client.ts';
import { parseCanonicalUrl } from '../url/canonicalize.ts';
import { urlExpressions } from '../url/expressions.ts';
import { InvalidUrlError } from '../url/invalid-url.ts';
import { reportDatabaseEvent } from './client-events.ts';
import { type ClientFlags, clientOptions } from './client-options.ts';
import { EXIT, type CliIo, type ExitStatus, UsageError } from './io.ts';
import type { UpdateSummary } from '../client/updates/list-updater.ts';
import { paint } from './terminal.ts';

/**
 * URLs checked together (SafeBrowsingClient.checkUrls): as many as one search request carries
 * (SEARCH_PREFIXES_PER_REQUEST prefixes, counting every expression of each URL) rather than a request
 * each, since a server with load control refuses more than 10 requests in 15 s (LC-1, LC-3); at most
 * this many URLs, so that results of a long --stdin are printed as they come.
 */
export const URLS_PER_BATCH = 100;
/**
 * URLs checked together in local mode, where the local lists answer nearly every URL and searches are
 * rare: enough for the client's look-up in bulk (several times faster than small batches), few enough
 * that results still come as the input arrives.
 */
export const URLS_PER_LOCAL_BATCH = 2048;

export interface CheckFlags extends ClientFlags {
  stdin?: boolean;
  json?: boolean;
  ohttpRelay?: string;
  ohttpKeys?: string;
}

/** A URL and what the client found, or why it is no URL that can be checked. */
type Line = { url: string; result: CheckResult } | { url: string; invalid: InvalidUrlError };

/** SB-3: warnings do not claim certainty. */
function describeThreats(result: CheckResult): string {
  const enforced = result.threats.filter((t) => t.enforced);
  const types = [...new Set(enforced.map((t) => t.threatType.toLowerCase().replace(/_/g, ' ')))];
  const expressions = [...new Set(enforced.map((t) => t.expression))];
  return `suspected ${types.join(', ')} (matched ${expressions.join(', ')})`;
}

function formatLine(line: Line, color: boolean): string {
  if ('invalid' in line) return `${paint('INVALID', 'yellow', color)}  ${line.url}: ${line.invalid.message}`;
  const { result } = line;
  if (result.verdict === 'UNSAFE') return `${paint('UNSAFE ', 'red', color)}  ${result.url}: ${describeThreats(result)}`;
  if (result.verdict === 'UNKNOWN') return `${paint('UNKNOWN', 'yellow', color)}  ${result.url}: not checked (${result.error.message})`;
  return `${paint('SAFE   ', 'green', color)}  ${result.url}`;
}

/** One element of `--json`'s array: the same keys for every verdict, `answeredBy` and `error` null where there is none. */
function jsonLine(line: Line): unknown {
  if ('invalid' in line) {
    const { code, message } = line.invalid;
    return { url: line.url, canonicalUrl: null, verdict: 'INVALID', answeredBy: null, threats: [], error: { code, message } };
  }
  const { result } = line;
  return {
    url: result.url,
    canonicalUrl: result.canonicalUrl,
    verdict: result.verdict,
    answeredBy: result.answeredBy ?? null,
    threats: result.threats,
    error: result.error === undefined ? null : { code: result.error.code, message: result.error.message },
  };
}

/**
 * The exit status of what was printed, the bitwise OR of the Go reference client's bits: 1 some URL
 * unsafe, 2 some not checked, 4 some no URL that can be checked; 0 every one checked and safe.
 */
function exitStatusOfLines(lines: readonly Line[]): ExitStatus {
  let status: number = EXIT.SAFE;
  for (const line of lines) {
    if ('invalid' in line) status |= EXIT.INVALID_INPUT;
    else if (line.result.verdict === 'UNSAFE') status |= EXIT.UNSAFE;
    else if (line.result.verdict === 'UNKNOWN') status |= EXIT.FAILED;
  }
  return status as ExitStatus;
}

/** The URLs of the arguments, then those of standard input as its lines arrive (blank lines and # comments skipped). */
async function* urlsOf(args: readonly string[], stdin: NodeJS.ReadableStream | undefined): AsyncGenerator<string> {
  yield* args;
  if (stdin === undefined) return;
  for await (const line of createInterface({ input: stdin, crlfDelay: Infinity })) {
    const url = line.trim();
    if (url !== '' && !url.startsWith('#')) yield url;
  }
}

/** Batches of at most `maxUrls` URLs and, unless it is Infinity, `maxPrefixes` prefixes. */
async function* batchesOf(urls: AsyncIterable<string>, maxUrls: number, maxPrefixes: number): AsyncGenerator<string[]> {
  let batch: string[] = [];
  let prefixes = 0;
  for await (const url of urls) {
    const weight = maxPrefixes === Infinity ? 0 : expressionCount(url);
    if (batch.length > 0 && prefixes + weight > maxPrefixes) {
      yield batch;
      batch = [];
      prefixes = 0;
    }
    batch.push(url);
    prefixes += weight;
    if (batch.length === maxUrls) {
      yield batch;
      batch = [];
      prefixes = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/** The prefixes a URL may need searched: one per expression (none for an unusable URL). */
function expressionCount(url: string): number {
  try {
    return urlExpressions(url).length;
  } catch (error) {
    if (error instanceof InvalidUrlError) return 0;
    throw error;
  }
}

/** Prints lines as they come; JSON as one array, written element by element. */
function printer(io: CliIo, json: boolean): { print(lines: readonly Line[]): void; end(): void } {
  let printed = 0;
  return {
    print(lines) {
      for (const line of lines) {
        if (json) io.out(`${printed === 0 ? '[\n' : ',\n'}${JSON.stringify(jsonLine(line), null, 2).replace(/^/gm, '  ')}`);
        else io.out(`${formatLine(line, io.color)}\n`);
        printed++;
      }
    },
    end() {
      if (json && printed > 0) io.out('\n]\n');
    },
  };
}

/** Runs `sbkit check` on its arguments and flags; sets the exit status from what it found (exitStatusOfLines). */
export async function check(urls: string[], flags: CheckFlags, io: CliIo, setExit: (status: ExitStatus) => void): Promise<void> {
  if (urls.length === 0 && flags.stdin !== true) throw new UsageError('give URLs as arguments or with --stdin');
  const options = clientOptions(flags);
  if ((flags.ohttpRelay === undefined) !== (flags.ohttpKeys === undefined))
    throw new UsageError("--ohttp-relay and --ohttp-keys go together: the relay to send through, and the gateway's keys");
  if (flags.ohttpRelay !== undefined && flags.ohttpKeys !== undefined) {
    if (options.protocol !== 'v5') throw new UsageError(`Oblivious HTTP carries v5 searches only; drop --protocol ${options.protocol}`);
    options.ohttp = { relay: flags.ohttpRelay, keys: flags.ohttpKeys };
  }
  // v4 and Web Risk have no global cache, so no real-time mode.
  options.mode ??= flags.data === undefined ? 'nostorage' : options.protocol === 'v5' ? 'realtime' : 'local';
  const client = new SafeBrowsingClient({ ...options, onEvent: (event) => reportDatabaseEvent(io, event) });
  const output = printer(io, flags.json === true);
  let any = false;
  let status: number = EXIT.SAFE;
  try {
    const input = urlsOf(urls, flags.stdin === true ? io.stdin : undefined);
    const batches =
      client.mode === 'local'
        ? batchesOf(input, URLS_PER_LOCAL_BATCH, Infinity)
        : batchesOf(input, URLS_PER_BATCH, SEARCH_PREFIXES_PER_REQUEST);
    if (client.mode !== 'nostorage') {
      const summary = await client.update();
      // A list named that the server does not have is a mistake in the command: nothing is checked.
      if (summary.error instanceof UnknownListError) throw summary.error;
      const problem = updateProblem(summary);
      // The checks say for themselves whether the lists could vouch for them (UNKNOWN otherwise).
      if (problem !== undefined) io.err(`sbkit: lists not updated: ${problem}\n`);
    }
    for await (const batch of batches) {
      any = true;
      const lines = await checkBatch(client, batch);
      status |= exitStatusOfLines(lines);
      output.print(lines);
    }
  } finally {
    // Also when a batch failed: what was printed stays well-formed JSON.
    output.end();
    await client.close();
  }
  if (!any) throw new UsageError('no URLs on standard input; give one per line');
  setExit(status as ExitStatus);
}

/** Why an update before the checks brought nothing new, when that is worth saying: a failure, a back-off, a wait the server imposed. */
function updateProblem(summary: UpdateSummary): string | undefined {
  const until = (moment: number) => new Date(moment).toISOString();
  const backoff = summary.backoffUntil === undefined ? '' : `; backing off until ${until(summary.backoffUntil)}`;
  if (summary.error !== undefined) return `${summary.error.message}${backoff}`;
  const { deferred } = summary;
  if (deferred === undefined || deferred.reason === 'minimum-wait') return undefined;
  if (deferred.reason === 'backoff') return `the last update failed; backing off until ${until(deferred.until)}`;
  if (deferred.reason === 'retry-after') return `the server asked to wait until ${until(deferred.until)}`;
  return `the first update waits until ${until(deferred.until)}`;
}

/** One batch: unusable URLs sorted out, the rest checked together, lines in the order given. */
async function checkBatch(client: SafeBrowsingClient, batch: readonly string[]): Promise<Line[]> {
  const invalid = new Map<number, InvalidUrlError>();
  batch.forEach((url, i) => {
    try {
      parseCanonicalUrl(url);
    } catch (err) {
      if (!(err instanceof InvalidUrlError)) throw err;
      invalid.set(i, err);
    }
  });
  const results = await client.checkUrls(batch.filter((_, i) => !invalid.has(i)));
  let next = 0;
  return batch.map((url, i): Line => {
    const error = invalid.get(i);
    return error === undefined ? { url, result: results[next++]! } : { url, invalid: error };
  });
}
