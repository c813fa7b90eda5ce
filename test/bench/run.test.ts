import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url);
const RESULTS = new URL('bench/RESULTS.md', ROOT);
/** bench/run.ts in the form this test runs in: compiled by scripts/test.mjs (.js), or from source under tsx. */
const RUN = fileURLToPath(import.meta.resolve('../../bench/run.ts'));
const LOADER = RUN.endsWith('.ts') ? ['--import', 'tsx'] : [];

// `npm run bench` takes minutes and is run by hand; this runs it in smoke mode (every benchmark once, on a
// hundredth of its data) so that a change that breaks it fails here, not on the day someone measures.
// It needs what the bench needs: the built package (`npm test` builds first) and Redis on 127.0.0.1:6379.
describe('npm run bench', () => {
  it('runs every benchmark in smoke mode and leaves bench/RESULTS.md alone', { timeout: 120_000 }, async () => {
    const resultsBefore = await readFile(RESULTS, 'utf8');
    const { stdout } = await promisify(execFile)(process.execPath, [...LOADER, '--expose-gc', RUN], {
      cwd: ROOT,
      env: { ...process.env, SBKIT_BENCH_SMOKE: '1' },
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.match(stdout, /\| URL → all expression hashes [^\n]*\| the SHA-256s alone of those URLs' expressions [^\n]*\| \d+\.\d\d× \|/);
    assert.match(stdout, /\| checkUrls of \d+ URLs, local mode[^\n]*\| \d+\.\d\d× \|/);
    for (const table of [
      '| work | median per op |',
      '| route | requests/s |',
      '| measurement | median | of the floor |',
      '| path | median | slowest |',
    ]) {
      assert.ok(stdout.includes(table), `the report lacks the table that starts ${table}`);
    }
    assert.equal(await readFile(RESULTS, 'utf8'), resultsBefore);
  });
});
