import { Command, Option } from 'commander';
import { type CheckResult, SafeBrowsingClient } from '../client/safe-browsing-client.ts';
import { InvalidUrlError } from '../url/invalid-url.ts';
import { addClientFlags, type ClientFlags, clientOptions } from './client-options.ts';
import { EXIT, type CliIo, type ExitStatus, UsageError } from './io.ts';
import { paint } from './paint.ts';

interface CheckFlags extends ClientFlags {
  stdin?: boolean;
  json?: boolean;
  ohttpRelay?: string;
  ohttpKeys?: string;
}

type Line = { url: string; result: CheckResult } | { url: string; invalid: string };

/** SB-3: warnings do not claim certainty. */
function describeThreats(result: CheckResult): string {
  const enforced = result.threats.filter((t) => t.enforced);
  const types = [...new Set(enforced.map((t) => t.threatType.toLowerCase().replace(/_/g, ' ')))];
  const expressions = [...new Set(enforced.map((t) => t.expression))];
  return `suspected ${types.join(', ')} (matched ${expressions.join(', ')})`;
}

function formatLine(line: Line, color: boolean): string {
  if ('invalid' in line) return `${paint('INVALID', 'yellow', color)}  ${line.url}: ${line.invalid}`;
  const { result } = line;
  if (result.verdict === 'UNSAFE') return `${paint('UNSAFE ', 'red', color)}  ${result.url}: ${describeThreats(result)}`;
  if (result.error !== undefined) return `${paint('SAFE?  ', 'yellow', color)}  ${result.url}: not confirmed (${result.error.message})`;
  return `${paint('SAFE   ', 'green', color)}  ${result.url}`;
}

function jsonLine(line: Line): unknown {
  if ('invalid' in line) return { url: line.url, verdict: 'INVALID', error: line.invalid };
  const { result } = line;
  return {
    url: result.url,
    canonicalUrl: result.canonicalUrl,
    verdict: result.verdict,
    answeredBy: result.answeredBy,
    threats: result.threats,
    ...(result.error === undefined ? {} : { error: result.error.message }),
  };
}

/** The Go reference client's convention: 4 invalid input, then 1 unsafe, then 2 failed, else 0. */
function exitStatus(lines: Line[]): ExitStatus {
  if (lines.some((l) => 'invalid' in l)) return EXIT.INVALID_INPUT;
  if (lines.some((l) => 'result' in l && l.result.verdict === 'UNSAFE')) return EXIT.UNSAFE;
  if (lines.some((l) => 'result' in l && l.result.error !== undefined)) return EXIT.FAILED;
  return EXIT.SAFE;
}

async function readStdinUrls(stdin: NodeJS.ReadableStream): Promise<string[]> {
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

export function checkCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  const command = new Command('check')
    .description('check URLs against Safe Browsing lists; exit 0 all safe, 1 some unsafe, 2 some checks failed, 4 invalid input')
    .argument('[urls...]', 'URLs to check')
    .option('--stdin', 'read URLs from standard input, one per line')
    .addOption(
      new Option('--mode <mode>', 'check procedure (default: realtime with --data, else nostorage)').choices(['realtime', 'local', 'nostorage']),
    )
    .option('--json', 'print JSON')
    .option('--ohttp-relay <url>', 'send searches through this Oblivious HTTP relay (SB-2), e.g. http://relay.example/ohttp-relay')
    .option('--ohttp-keys <url|file>', "the gateway's key configuration, e.g. http://127.0.0.1:8080/ohttp-keys");
  addClientFlags(command);
  return command.action(async (urls: string[], flags: CheckFlags) => {
    const all = [...urls, ...(flags.stdin === true ? await readStdinUrls(io.stdin) : [])];
    if (all.length === 0) {
      io.err('sbkit check: give URLs as arguments or with --stdin\n');
      setExit(EXIT.INVALID_INPUT);
      return;
    }
    const options = clientOptions(flags);
    if ((flags.ohttpRelay === undefined) !== (flags.ohttpKeys === undefined)) throw new UsageError('--ohttp-relay and --ohttp-keys go together: the relay to send through, and the gateway\'s keys');
    if (flags.ohttpRelay !== undefined && flags.ohttpKeys !== undefined) {
      if (options.protocol === 'v4') throw new UsageError('Oblivious HTTP carries v5 searches only; drop --protocol v4');
      options.ohttp = { relay: flags.ohttpRelay, keys: flags.ohttpKeys };
    }
    options.mode ??= flags.data === undefined ? 'nostorage' : options.protocol === 'v4' ? 'local' : 'realtime';
    const client = new SafeBrowsingClient(options);
    const lines: Line[] = [];
    try {
      if (client.mode !== 'nostorage') {
        const summary = await client.update();
        if (summary.error !== undefined) io.err(`sbkit: lists not updated: ${summary.error.message}\n`);
      }
      for (const url of all) {
        try {
          lines.push({ url, result: await client.checkUrl(url) });
        } catch (err) {
          if (!(err instanceof InvalidUrlError)) throw err;
          lines.push({ url, invalid: err.message });
        }
      }
    } finally {
      await client.close();
    }
    if (flags.json === true) io.out(`${JSON.stringify(lines.map(jsonLine), null, 2)}\n`);
    else io.out(lines.map((line) => `${formatLine(line, io.color)}\n`).join(''));
    setExit(exitStatus(lines));
  });
}
