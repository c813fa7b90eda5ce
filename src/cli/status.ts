import { Command } from 'commander';
import { connectionFailure } from '../client/transport/connection-failure.ts';
import { isHttpUrl } from '../client/options.ts';
import type { ServerStatus } from '../server/web/status.ts';
import { deadline, systemClock } from '../time/clock.ts';
import { EMBEDDED_SERVER } from './client-options.ts';
import { EXIT, type CliIo, type ExitStatus, UsageError } from './io.ts';
import { paint, formatTable } from './terminal.ts';

interface StatusFlags {
  server: string;
  json?: boolean;
}

const TIMEOUT_MS = 10_000;

/** A server's words as a terminal shows them: its control and format characters (escape sequences, bidi) replaced. */
const printable = (text: unknown): string => String(text).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '\uFFFD');

/** `sbkit status`: what a running sbkit server reports at /status.json, for people or as JSON. */
export function statusCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  return new Command('status')
    .description('show what a running sbkit server serves: its lists, their versions and age, requests and load control')
    .option('--server <url>', 'the sbkit server to ask', EMBEDDED_SERVER)
    .option('--json', "print the server's JSON as it is")
    .action(async (flags: StatusFlags) => {
      if (!isHttpUrl(flags.server))
        throw new UsageError(`--server must be an http(s) URL such as ${EMBEDDED_SERVER}, not "${flags.server}"`);
      const url = `${flags.server.replace(/\/+$/, '')}/status.json`;
      const notRead = (reason: string, advice = 'is "sbkit serve" running there?') => {
        io.err(`sbkit status: cannot read ${url}: ${reason}; ${advice}\n`);
        setExit(EXIT.FAILED);
      };
      let response: Response;
      try {
        // The deadline bounds the answer's body too, read below; the command's end leaves its timer behind (unref'd).
        const { signal } = deadline(systemClock, TIMEOUT_MS);
        response = await fetch(url, { signal, headers: { 'user-agent': 'sbkit-status' } });
      } catch (error) {
        // A cause with a known remedy (a certificate not trusted, plain HTTP to a TLS port) says what to
        // do; any other may be no server there.
        const { reason, advice } = connectionFailure(error, new URL(url));
        notRead(reason, advice);
        return;
      }
      let status: ServerStatus;
      try {
        if (!response.ok) throw new Error(`it answered HTTP ${response.status}`);
        status = (await response.json()) as ServerStatus;
        if (!Array.isArray(status.lists) || typeof status.version !== 'string') throw new Error('its answer is not an sbkit status');
      } catch (error) {
        notRead((error as Error).message);
        return;
      }
      if (flags.json === true) {
        io.out(`${JSON.stringify(status, null, 2)}\n`);
        return;
      }
      io.out(
        `${paint(`sbkit ${status.version}`, 'bold', io.color)} at ${flags.server}, serving ${status.serving}, up ${status.uptimeSeconds} s\n\n`,
      );
      const rows = status.lists.map((l) => [l.name, l.version.slice(0, 12), String(l.entries), l.publishedAt, `${l.ageSeconds} s`]);
      io.out(formatTable(['list', 'version', 'entries', 'published', 'age'], rows, [2, 4]));
      // Servers before this field was shown send none.
      for (const l of status.lists) {
        if (typeof l.unavailable === 'string')
          io.out(paint(`${printable(l.name)}: not served: ${printable(l.unavailable)}\n`, 'yellow', io.color));
      }
      // Servers before feed states were shown send none.
      const feeds = status.feeds ?? [];
      if (feeds.length > 0) {
        const colors = { fresh: undefined, pending: undefined, failing: 'yellow', unavailable: 'red' } as const;
        io.out('\n');
        io.out(
          formatTable(
            ['list', 'source', 'state'],
            feeds.map((f) => {
              const color = colors[f.state];
              const cells = [f.list, f.name, f.summary].map(printable);
              return [cells[0]!, cells[1]!, color === undefined ? cells[2]! : paint(cells[2]!, color, io.color)];
            }),
            [],
          ),
        );
      }
      const { answered, refused, failed } = status.requests;
      io.out(
        `\nrequests in the last hour: ${answered} answered, ${refused > 0 ? paint(`${refused} refused`, 'yellow', io.color) : '0 refused'}, ${failed > 0 ? paint(`${failed} failed`, 'red', io.color) : '0 failed'}\n`,
      );
      const control = status.loadControl;
      if (control === null) {
        io.out('load control: off\n');
        return;
      }
      const refusals = Object.entries(control.refused).map(([key, n]) => `${key} ${n}`);
      io.out(
        `load control: ${control.load} in progress, ${control.waiting} waiting, limits ${control.shared ? 'shared through Redis' : 'in memory'}; refused: ${refusals.length === 0 ? 'none' : refusals.join(', ')}\n`,
      );
    });
}
