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
// Order: the end-to-end files listed below start first. Each is one long run of a whole program (a minute
// or more under load); started in alphabetical turn, the packed-tarball test began after three quarters
// of the files and the runner ended waiting on it alone.
//
// `SBKIT_TEST_TIER=quick` leaves out those end-to-end files, which test what does not depend on the Node
// line running them twice would cover (CI runs them once, on Node 24: .ci/run).
//
// `--lint` (npm test) runs `npm run lint` beside the compile and the tests, at a lower priority, its
// output held until they end: the linters take a core for about a minute and a half, mostly while files
// wait on sockets and children; one after the other, the lint's time added to the run's.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
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
const lint = process.argv.includes('--lint');
// Test files named on the command line (`node scripts/test.mjs test/a/b.test.ts …`) run instead of all of the tier.
const named = process.argv
  .slice(2)
  .filter((arg) => arg !== '--lint')
  .map((file) => normalize(file));
const unknown = named.filter((file) => !all.includes(file));
if (unknown.length > 0) {
  console.error(`not test files of test/: ${unknown.join(', ')}`);
  process.exit(2);
}
const chosen = named.length > 0 ? named : tier === 'all' ? all : all.filter((file) => !END_TO_END.has(file));
const inTurn = [...chosen.filter((file) => END_TO_END.has(file)), ...chosen.filter((file) => !END_TO_END.has(file))];

/** Resolves with the exit status of `child` once it has ended (1 when it could not start, 128 when a signal ended it). */
function ended(child, what) {
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`${what}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (status, signal) => resolve(status ?? (signal === null ? 1 : 128)));
  });
}

/** `npm run lint`, its output kept for the end; resolves with what it printed and its exit status. */
async function linted() {
  const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'lint'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  // At a lower priority, which the linters it starts inherit: they take what the tests leave of the
  // cores, and the tests' deadlines meet a machine busy with the tests alone.
  try {
    if (child.pid !== undefined) setPriority(child.pid, 10);
  } catch {
    // A system that will not lower it runs the linters at the tests' priority.
  }
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  const status = await ended(child, 'npm run lint');
  return { status, output: Buffer.concat(output).toString() };
}

async function testRun() {
  const build = compileTests(join(root, 'tsconfig.test.json'));
  if (build === undefined) return 1;
  const files = inTurn.map((file) => relative(root, join(build, file.replace(/\.ts$/, '.js'))));
  // Stack traces name the TypeScript sources' lines, as under tsx (tsconfig.test.json writes source maps).
  const args = ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...files];
  return ended(spawn(process.execPath, args, { cwd: root, stdio: 'inherit' }), 'node --test');
}

const lintRun = lint ? linted() : undefined;
const testStatus = await testRun();
if (lintRun !== undefined) {
  const { status, output } = await lintRun;
  process.stdout.write(`\n# npm run lint (beside the tests): ${status === 0 ? 'passed' : `failed, status ${status}`}\n${output}`);
  if (testStatus === 0 && status !== 0) process.exit(status);
}
process.exit(testStatus);
