// The library prints nothing: it reports through return values, errors, and the `onEvent`, `log` and
// `onReport` callbacks of its options. Only the CLI (dist/cli/) writes to the terminal.

import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Both packages' compiled modules: sbkit's, and @sbkit/client's. */
const DISTS = [join(ROOT, 'dist'), join(ROOT, 'packages', 'client', 'dist')];
const PRINTS = /\bconsole\s*\.\s*\w+|\bprocess\s*\.\s*(?:stdout|stderr)\b/;

describe('the compiled library', () => {
  it('never writes to the console or the standard streams outside the CLI', async () => {
    const printing: string[] = [];
    for (const dist of DISTS) {
      const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith('.js') && !file.startsWith(`cli/`));
      assert.ok(files.length > 50, `only ${files.length} compiled files found in ${dist}: run "npm run build" first`);
      for (const file of files) {
        const lines = (await readFile(join(dist, file), 'utf8')).split('\n');
        lines.forEach((line, i) => {
          if (PRINTS.test(line) && !/^\s*(\/\/|\*)/.test(line)) printing.push(`${join(dist, file)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    assert.deepEqual(printing, []);
  });
});
