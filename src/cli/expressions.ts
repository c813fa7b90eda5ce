import { Command } from 'commander';
import { InvalidUrlError } from '../url/invalid-url.ts';
import { exitStatusOf, type CliIo, type ExitStatus } from './io.ts';

interface ExpressionReport {
  canonicalUrl: string;
  expressions: { expression: string; sha256: string; prefixHex: string; prefixBase64: string }[];
}

/**
 * What `sbkit expressions` shows: SB-5's canonical URL, then SB-6's expressions with SB-7's hashes. The
 * URL pipeline (and its Public Suffix List) is loaded here, not when the CLI starts.
 */
async function expressionReport(url: string): Promise<ExpressionReport> {
  const { parseCanonicalUrl, formatCanonicalUrl, expressionsOf, expressionHash, hashPrefix } = await import('../url/index.ts');
  const canonical = parseCanonicalUrl(url);
  return {
    canonicalUrl: formatCanonicalUrl(canonical),
    expressions: expressionsOf(canonical).map((expression) => {
      const full = expressionHash(expression);
      const prefix = hashPrefix(full);
      return {
        expression,
        sha256: full,
        prefixHex: prefix,
        prefixBase64: Buffer.from(prefix, 'hex').toString('base64'),
      };
    }),
  };
}

function formatReport(report: ExpressionReport): string {
  const width = Math.max('expression'.length, ...report.expressions.map((e) => e.expression.length));
  const lines = [
    `canonical URL: ${report.canonicalUrl}`,
    '',
    `${'expression'.padEnd(width)}  ${'prefix'.padEnd(8)}  ${'base64'.padEnd(8)}  sha256`,
    ...report.expressions.map((e) => `${e.expression.padEnd(width)}  ${e.prefixHex}  ${e.prefixBase64}  ${e.sha256}`),
  ];
  return `${lines.join('\n')}\n`;
}

export function expressionsCommand(io: CliIo, setExit: (status: ExitStatus) => void): Command {
  return new Command('expressions')
    .description('show the canonical URL and every expression checked for it, with SHA-256 and 4-byte prefix')
    .argument('<url>', 'the URL to take apart')
    .option('--json', 'print JSON instead of a table')
    .action(async (url: string, options: { json?: boolean }) => {
      let report: ExpressionReport;
      try {
        report = await expressionReport(url);
      } catch (err) {
        if (!(err instanceof InvalidUrlError)) throw err;
        io.err(`sbkit: ${err.message}\n`);
        setExit(exitStatusOf(err));
        return;
      }
      io.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    });
}
