// ESLint: JavaScript's recommended rules and typescript-eslint's type-checked ones over everything
// TypeScript in the repository, plus the house rules of src/ (the library prints nothing and reads no
// process state: only src/cli does).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const READS_THE_PROCESS = {
  name: 'process',
  message: 'Only src/cli reads the process (its arguments, environment, streams, exit): pass what a part needs as an option.',
};
const CLOCK_MESSAGE = 'Take a Clock (src/time/clock.ts) and use its now() and setTimeout(): one clock, which tests can move.';
const TIME_OUTSIDE_THE_CLOCK = ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map(
  (name) => ({ name, message: CLOCK_MESSAGE }),
);

export default defineConfig(
  // test/package/consumer/ is type-checked by its test, against the installed package; .test-build/ is the
  // tests compiled by scripts/test.mjs.
  { ignores: ['dist/', 'packages/*/dist/', '.test-build/', 'docs/api/', 'node_modules/', 'src/proto/gen/', 'test/package/consumer/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '.*.cjs', 'scripts/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Memory stores beside Redis ones, and fastify hooks, implement async interfaces without awaiting.
      '@typescript-eslint/require-await': 'off',
      // A `let` that a callback made before its assignment reads stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Parameters a signature must have but a body does not use are named with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // node:test runs what describe() and it() return; nothing is lost by not awaiting them.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
    },
  },
  // JavaScript files (the build script, this file) are linted without types.
  { files: ['**/*.{js,mjs,cjs}'], extends: [tseslint.configs.disableTypeChecked] },
  // The samples' scripts run in a browser: pages, an extension's pages and its service worker.
  {
    files: ['examples/*/src/**/*.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions } },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-console': 'error',
      'no-restricted-globals': ['error', READS_THE_PROCESS, ...TIME_OUTSIDE_THE_CLOCK],
    },
  },
  // One clock (src/time/clock.ts): every wait and every reading of the time in src/ goes through a Clock, so
  // that a test moves time for the whole program at once and a timer past 2^31 − 1 ms cannot overflow.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/time/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: CLOCK_MESSAGE },
        { object: 'performance', property: 'now', message: CLOCK_MESSAGE },
        {
          object: 'AbortSignal',
          property: 'timeout',
          message: 'Take deadline(clock, ms) from src/time/clock.ts: a deadline on the one clock.',
        },
      ],
      'no-restricted-imports': [
        'error',
        { paths: ['timers', 'node:timers', 'timers/promises', 'node:timers/promises'].map((name) => ({ name, message: CLOCK_MESSAGE })) },
      ],
    },
  },
  { files: ['src/cli/**/*.ts'], rules: { 'no-restricted-globals': ['error', ...TIME_OUTSIDE_THE_CLOCK] } },
  // The clock itself: the one place that reads the system's time and sets its timers.
  {
    files: ['src/time/**/*.ts'],
    rules: { 'no-restricted-globals': ['error', READS_THE_PROCESS], 'no-restricted-properties': 'off', 'no-restricted-imports': 'off' },
  },
);
