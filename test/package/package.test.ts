// The package as a user gets it: `npm pack`, then the tarball installed into an empty project with no
// dev tooling, imported from plain JavaScript, type-checked from strict TypeScript, and its command run
// with npx, all on the Node that runs this test (CI runs the suite on Node 20 and on Node 24).
//
// Nothing here reaches the network: the empty project gets a lockfile made from the checkout's own, so
// that `npm ci --offline` installs the tarball's dependencies from the npm cache that installing the
// checkout filled.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
const CONSUMER = new URL('./consumer/', import.meta.url).pathname;
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
/** The test's own Node first on the PATH: npm, npx and `#!/usr/bin/env node` then run on it too. */
const ENV = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`,
  npm_config_offline: 'true',
  NO_COLOR: '1',
};
// Google's phishing test page, listed by the embedded demo data; and the expression of docs/api.md §3's capture.
const PHISHING_TEST_URL = 'http://testsafebrowsing.appspot.com/s/phishing.html';
const CAPTURED_EXPRESSION = 'malware.sbtest.example/';
const CAPTURED_SHA256 = 'bfd00f8e2fe3c810bd449e28af095aa010d0ebc11875a2bab2f19b9147cf086f';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[], cwd: string, timeout = 120_000): Promise<Run> {
  return promisify(execFile)(command, args, { cwd, env: ENV, timeout, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

interface PackedFile {
  path: string;
}
interface Packed {
  filename: string;
  integrity: string;
  files: PackedFile[];
}

/** `npm pack --json` in the checkout; the build comes first (`npm test` runs it). */
async function pack(...args: string[]): Promise<Packed> {
  await stat(join(ROOT, 'dist', 'index.js')).catch(() =>
    assert.fail('dist/ is missing: run "npm run build" (npm test does) before this test'),
  );
  const result = await run(NPM, ['pack', '--json', '--ignore-scripts', ...args], ROOT);
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as Packed[])[0]!;
}

interface LockEntry {
  dev?: boolean;
  [field: string]: unknown;
}

/**
 * A lockfile for a project whose only dependency is the tarball: the tarball's entry, and every entry of
 * the checkout's lockfile that is not a dev dependency (the same tree npm would resolve for it).
 */
function consumerLock(checkoutLock: { packages: Record<string, LockEntry> }, manifest: Record<string, unknown>, tarball: Packed): unknown {
  const packages: Record<string, unknown> = {
    '': { name: 'sbkit-consumer', dependencies: { sbkit: `file:${tarball.filename}` } },
    'node_modules/sbkit': {
      version: manifest['version'],
      resolved: `file:${tarball.filename}`,
      integrity: tarball.integrity,
      license: manifest['license'],
      dependencies: manifest['dependencies'],
      bin: manifest['bin'],
      engines: manifest['engines'],
    },
  };
  for (const [path, entry] of Object.entries(checkoutLock.packages)) {
    if (path !== '' && entry.dev !== true) packages[path] = entry;
  }
  return { name: 'sbkit-consumer', lockfileVersion: 3, requires: true, packages };
}

let project: string;
let tarball: Packed;

before(async () => {
  project = await mkdtemp(join(tmpdir(), 'sbkit-consumer-'));
  tarball = await pack('--pack-destination', project);
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const checkoutLock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'sbkit-consumer', private: true, type: 'module', dependencies: { sbkit: `file:${tarball.filename}` } }),
  );
  await writeFile(join(project, 'package-lock.json'), JSON.stringify(consumerLock(checkoutLock, manifest, tarball)));
  const install = await run(NPM, ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], project, 300_000);
  assert.equal(install.code, 0, `npm ci of the tarball failed:\n${install.stderr}`);
  for (const file of ['exports.mjs', 'use.ts', 'wrong.ts']) await copyFile(join(CONSUMER, file), join(project, file));
});

after(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the compiled package, its declarations, README, LICENSE, CHANGELOG, SECURITY and docs, and nothing of the workshop', async () => {
    const { files } = await pack('--dry-run');
    const paths = files.map((file) => file.path);
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'SECURITY.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.js.map',
      'dist/cli/bin.js',
      'dist/client/index.d.ts',
      'dist/server/index.d.ts',
      'dist/url/index.d.ts',
      'docs/api.md',
      'docs/client-library.md',
    ]) {
      assert.ok(paths.includes(needed), `${needed} is missing from the tarball`);
    }
    const workshop =
      /^(src|test|bench|scripts|\.ci|docs\/api|node_modules)\/|^(tsconfig.*|typedoc\.json|buf\..*|package-lock\.json|\.gitignore)$/;
    assert.deepEqual(
      paths.filter((path) => workshop.test(path)),
      [],
      'files a user does not need',
    );
    assert.ok(
      paths.filter((path) => path.endsWith('.ts')).every((path) => path.endsWith('.d.ts')),
      'TypeScript sources in the tarball',
    );
  });

  it('installs without TypeScript or tsx: the installed package runs compiled JavaScript only', async () => {
    for (const tool of ['tsx', 'typescript', 'esbuild']) {
      await assert.rejects(stat(join(project, 'node_modules', tool)), `${tool} was installed with the package`);
    }
    const manifest = JSON.parse(await readFile(join(project, 'node_modules', 'sbkit', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    assert.match(await readFile(join(project, 'node_modules', 'sbkit', manifest.bin['sbkit']!), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it('imports every public export of every entry point from a plain .mjs file, and runs one URL through the pipeline', async () => {
    const result = await run(process.execPath, ['exports.mjs', `http://${CAPTURED_EXPRESSION}`], project);
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout) as {
      exports: Record<'root' | 'client' | 'server' | 'url', string[]>;
      canonical: string;
      expressions: { expression: string; sha256: string; prefix: string }[];
      invalid: { name: string; isInvalidUrlError: boolean };
      sameClass: boolean;
      node: string;
    };
    // The names the sources export, entry by entry: the built package must offer each of them.
    const entries = {
      root: '../../src/index.ts',
      client: '../../src/client/index.ts',
      server: '../../src/server/index.ts',
      url: '../../src/url/index.ts',
    } as const;
    for (const [entry, source] of Object.entries(entries) as [keyof typeof entries, string][]) {
      const expected = Object.keys((await import(source)) as object).sort();
      assert.ok(expected.length > 0, `${source} exports nothing`);
      assert.deepEqual(seen.exports[entry], expected, `exports of the ${entry} entry point`);
    }
    assert.equal(seen.canonical, `http://${CAPTURED_EXPRESSION}`);
    assert.deepEqual(seen.expressions[0], {
      expression: CAPTURED_EXPRESSION,
      sha256: CAPTURED_SHA256,
      prefix: CAPTURED_SHA256.slice(0, 8),
    });
    assert.deepEqual(seen.invalid, { name: 'InvalidUrlError', isInvalidUrlError: true });
    assert.equal(seen.sameClass, true, 'sbkit and sbkit/client must be one module, not two copies');
    assert.equal(seen.node, process.version, 'the consumer ran on another Node than the test');
  });

  for (const resolution of ['nodenext', 'bundler'] as const) {
    it(`type-checks a strict TypeScript consumer against the shipped declarations (moduleResolution ${resolution})`, async () => {
      const compilerOptions = {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'ES2022',
        module: resolution === 'nodenext' ? 'nodenext' : 'esnext',
        moduleResolution: resolution,
        types: ['node'],
        // The consumer's own @types/node: the checkout's, as a Node project has its own.
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      };
      await writeFile(join(project, `tsconfig.${resolution}.json`), JSON.stringify({ compilerOptions, files: ['use.ts'] }));
      const clean = await run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.json`], project);
      assert.equal(clean.code, 0, `use.ts does not compile:\n${clean.stdout}${clean.stderr}`);
      // The declarations must carry real types: a wrong use is an error, not an `any` that passes.
      await writeFile(join(project, `tsconfig.${resolution}.wrong.json`), JSON.stringify({ compilerOptions, files: ['wrong.ts'] }));
      const wrong = await run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.wrong.json`], project);
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stdout, /wrong\.ts\(5,14\): error TS2322: Type 'string' is not assignable to type 'number'/);
    });
  }

  it(
    'runs `npx sbkit expressions`, and `npx sbkit check` against `npx sbkit serve` (exit 1 for the phishing test page)',
    { timeout: 120_000 },
    async () => {
      const expressions = await run(NPX, ['sbkit', 'expressions', `http://${CAPTURED_EXPRESSION}`], project);
      assert.equal(expressions.code, 0, expressions.stderr);
      assert.match(
        expressions.stdout,
        new RegExp(`${CAPTURED_EXPRESSION}\\s+${CAPTURED_SHA256.slice(0, 8)}\\s+v9APjg==\\s+${CAPTURED_SHA256}`),
      );

      // In a process group of its own: npx does not pass signals on to the command it runs, so the group
      // is what is stopped.
      const server = spawn(NPX, ['sbkit', 'serve', '--port', '0'], {
        cwd: project,
        env: ENV,
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let stderr = '';
          const timer = setTimeout(() => reject(new Error(`npx sbkit serve did not start: ${stderr}`)), 60_000);
          server.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
            const match = /listening on (http:\/\/\S+?),? /.exec(stderr);
            if (match === null) return;
            clearTimeout(timer);
            resolve(match[1]!);
          });
          server.on('exit', (code) => reject(new Error(`npx sbkit serve exited with ${code}: ${stderr}`)));
        });
        const check = await run(NPX, ['sbkit', 'check', '--server', url, PHISHING_TEST_URL], project);
        assert.equal(check.code, 1, `${check.stdout}${check.stderr}`);
        assert.match(check.stdout, /^UNSAFE\s+http:\/\/testsafebrowsing\.appspot\.com\/s\/phishing\.html: suspected social engineering/);
      } finally {
        process.kill(-server.pid!, 'SIGTERM');
      }
    },
  );
});
