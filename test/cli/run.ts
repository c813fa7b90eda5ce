import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/io.ts';

/** Runs `sbkit ...args` in this process and captures what it printed. */
export async function run(args: string[], stdin = ''): Promise<{ status: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    stdin: Readable.from([stdin]),
    color: false,
    interactive: false,
  };
  const status = await main(['node', 'sbkit', ...args], io);
  return { status, out, err };
}
