// The test files of `npm test`, run by Node's test runner under tsx. Three files run at once by default:
// much of a file's time is waiting (sockets, deadlines, a browser), so on a 2-core machine the runner's
// own default (cores − 1: one file at a time) leaves the cores idle; on that machine the suite took
// 398 s with two at once and 341 s with three. `SBKIT_TEST_CONCURRENCY` changes it.
//
// `SBKIT_TEST_TIER=quick` leaves out the end-to-end files listed below, which test what does not depend
// on the Node line running them twice would cover (CI runs them once, on Node 24: .ci/run).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** The slowest files, each a whole program or browser run: tarball, benchmark, chaos, Chromium, typedoc. */
const END_TO_END = new Set([
  'test/bench/chaos.test.ts',
  'test/bench/run.test.ts',
  'test/docs/api-reference.test.ts',
  'test/examples/browser-samples.test.ts',
  'test/package/package.test.ts',
]);

const tier = process.env['SBKIT_TEST_TIER'] ?? 'all';
if (tier !== 'all' && tier !== 'quick') {
  console.error(`SBKIT_TEST_TIER is "${tier}": write "all" (the default) or "quick" (without the end-to-end files)`);
  process.exit(2);
}
const concurrency = Number(process.env['SBKIT_TEST_CONCURRENCY'] ?? 3);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`SBKIT_TEST_CONCURRENCY is "${process.env['SBKIT_TEST_CONCURRENCY']}": write a whole number of files at once, 1 or more`);
  process.exit(2);
}

/** test/<area>/*.test.ts and test/<area>/<part>/*.test.ts, as the runner's glob would find them. */
function testFiles() {
  const found = [];
  for (const entry of readdirSync(join(root, 'test'), { recursive: true })) {
    const depth = entry.split('/').length;
    if (entry.endsWith('.test.ts') && (depth === 2 || depth === 3)) found.push(join('test', entry));
  }
  return found.sort();
}

const all = testFiles();
const missing = [...END_TO_END].filter((file) => !all.includes(file));
if (missing.length > 0) {
  console.error(`scripts/test.mjs names ${missing.join(', ')}, not found: update its END_TO_END list`);
  process.exit(2);
}
const files = tier === 'all' ? all : all.filter((file) => !END_TO_END.has(file));
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files];
const { status, signal } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(status ?? (signal === null ? 1 : 128));
