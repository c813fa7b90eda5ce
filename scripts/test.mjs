// The test files of `npm test`, compiled once (scripts/test-build.mjs, which also type-checks: an error
// stops the run) and run from JavaScript by Node's test runner. Each compiled module keeps the
// `import.meta.url` of its source, so a test reads its fixtures, the docs and the sources where they are;
// `node --import tsx --test test/a/b.test.ts` runs one file from source, and `node scripts/test.mjs
// test/a/b.test.ts …` compiles and runs the files named.
//
// Running: three files at once by default. On a 2-core machine the runner's own default (cores − 1: one
// file at a time) leaves the cores idle while a file waits (sockets, deadlines, a browser, npm); compiled,
// a sample of 26 files of the quick tier keeps both cores busy with two at once already (58 s with two,
// 60 s with three, 59 s with four, a quiet machine), but the end-to-end files mostly wait, and a third
// file fills those waits. `SBKIT_TEST_CONCURRENCY` changes it.
//
// `SBKIT_TEST_TIER=quick` leaves out the end-to-end files listed below, which test what does not depend
// on the Node line running them twice would cover (CI runs them once, on Node 24: .ci/run).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { compileTests } from './test-build.mjs';

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

/** Every `*.test.ts` under test/, at any depth (rooms nest: test/server/feeds/sources/), but none in fixtures. */
function testFiles() {
  const found = [];
  for (const entry of readdirSync(join(root, 'test'), { recursive: true })) {
    const parts = entry.split('/');
    if (entry.endsWith('.test.ts') && !parts.includes('fixtures') && !parts.includes('node_modules')) found.push(join('test', entry));
  }
  return found.sort();
}

const all = testFiles();
const missing = [...END_TO_END].filter((file) => !all.includes(file));
if (missing.length > 0) {
  console.error(`scripts/test.mjs names ${missing.join(', ')}, not found: update its END_TO_END list`);
  process.exit(2);
}
// Test files named on the command line (`node scripts/test.mjs test/a/b.test.ts …`) run instead of all of the tier.
const named = process.argv.slice(2).map((file) => normalize(file));
const unknown = named.filter((file) => !all.includes(file));
if (unknown.length > 0) {
  console.error(`not test files of test/: ${unknown.join(', ')}`);
  process.exit(2);
}
const chosen = named.length > 0 ? named : tier === 'all' ? all : all.filter((file) => !END_TO_END.has(file));
const build = compileTests(join(root, 'tsconfig.test.json'));
if (build === undefined) process.exit(1);
const files = chosen.map((file) => relative(root, join(build, file.replace(/\.ts$/, '.js'))));
// Stack traces name the TypeScript sources' lines, as under tsx (tsconfig.test.json writes source maps).
const args = ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...files];
const { status, signal } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(status ?? (signal === null ? 1 : 128));
