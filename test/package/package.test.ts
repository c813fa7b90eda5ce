// The packages as a user gets them: `npm pack` of sbkit and of @sbkit/client, then installed into empty
// projects with no dev tooling (`--omit=dev`): the client alone, as a library user installs it, within
// its budget of packages and bytes; sbkit with it, as a server's operator does. Each is imported from
// plain JavaScript and type-checked from strict TypeScript, and sbkit's command runs with npx, all on the
// Node that runs this test (CI runs it on Node 24).
//
// Nothing here reaches the network: each empty project gets a lockfile made from the checkout's own (the
// packages its tarballs' dependencies reach, as the checkout resolved them), so that `npm ci --offline`
// installs them from the npm cache that installing the checkout filled.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLIENT_ROOT = join(ROOT, 'packages', 'client');
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
/** What a library user who only checks URLs installs with @sbkit/client (issue 27): the package itself counted. */
const CLIENT_BUDGET = { packages: 8, bytes: 8_000_000 };
/** The server's and the CLI's dependencies, which a client-only install must not bring. */
const SERVER_PACKAGES = ['fastify', 'redis', 'prom-client', 'isbot', 'crawler-user-agents', 'commander', 'cli-progress', '@hpke/core'];
// Google's phishing test page, listed by the embedded demo data; and the expression of docs/api.md §3's capture.
const PHISHING_TEST_URL = 'http://testsafebrowsing.appspot.com/s/phishing.html';
const CAPTURED_EXPRESSION = 'malware.sbtest.example/';
const CAPTURED_SHA256 = 'bfd00f8e2fe3c810bd449e28af095aa010d0ebc11875a2bab2f19b9147cf086f';
/** Every file a user needs nothing of. */
const WORKSHOP =
  /^(src|test|bench|scripts|packages|\.ci|docs\/api|node_modules)\/|^(tsconfig.*|typedoc\.json|buf\..*|package-lock\.json|\.gitignore)$/;

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

interface Packed {
  filename: string;
  integrity: string;
  files: { path: string }[];
}

/** `npm pack --json` of the package in `folder`; the build comes first (`npm test` runs it). */
async function pack(folder: string, ...args: string[]): Promise<Packed> {
  await stat(join(folder, 'dist', 'index.js')).catch(() =>
    assert.fail(`${folder}dist/ is missing: run "npm run build" (npm test does) before this test`),
  );
  const result = await run(NPM, ['pack', '--json', '--ignore-scripts', ...args], folder);
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as Packed[])[0]!;
}

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** A packed package: its manifest and its tarball. */
interface Tarball {
  manifest: { name: string; version: string; dependencies?: Record<string, string>; [field: string]: unknown };
  packed: Packed;
}

/** Where npm finds `name` for the package installed at `from`: its own node_modules, then each one above. */
function located(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let at = from; ;) {
    const path = `${at === '' ? '' : `${at}/`}node_modules/${name}`;
    if (path in packages) return path;
    if (at === '') return undefined;
    const above = at.lastIndexOf('/node_modules/');
    at = above === -1 ? '' : at.slice(0, above);
  }
}

/** The packages an entry needs installed: its dependencies, its optional ones where there are, its required peers. */
function needs(entry: LockEntry): [string, boolean][] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => entry.peerDependenciesMeta?.[name]?.optional !== true);
  return [
    ...Object.keys(entry.dependencies ?? {}).map((name): [string, boolean] => [name, true]),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name): [string, boolean] => [name, false]),
    ...peers.map((name): [string, boolean] => [name, true]),
  ];
}

/**
 * A lockfile for a project whose dependencies are the tarballs: their entries, and every entry of the
 * checkout's lockfile that their dependencies reach (the tree npm resolves for them from the same pins).
 */
function consumerLock(checkoutLock: { packages: Record<string, LockEntry> }, tarballs: Tarball[]): unknown {
  const name = 'sbkit-consumer';
  const provided = new Set(tarballs.map(({ manifest }) => manifest.name));
  const packages: Record<string, LockEntry> = {
    '': { name, dependencies: Object.fromEntries(tarballs.map(({ manifest, packed }) => [manifest.name, `file:${packed.filename}`])) },
  };
  const pending: [string, LockEntry][] = [];
  for (const { manifest, packed } of tarballs) {
    const entry: LockEntry = {
      version: manifest.version,
      resolved: `file:${packed.filename}`,
      integrity: packed.integrity,
      license: manifest['license'],
      dependencies: manifest.dependencies,
      bin: manifest['bin'],
      engines: manifest['engines'],
    };
    packages[`node_modules/${manifest.name}`] = entry;
    pending.push([`node_modules/${manifest.name}`, entry]);
  }
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, entry] = next;
    for (const [dependency, required] of needs(entry)) {
      if (provided.has(dependency)) continue;
      const path = located(checkoutLock.packages, from, dependency);
      if (path === undefined) {
        assert.ok(!required, `the checkout's lockfile has no ${dependency} for ${from}`);
        continue;
      }
      if (path in packages) continue;
      const installed = checkoutLock.packages[path]!;
      packages[path] = installed;
      pending.push([path, installed]);
    }
  }
  return { name, lockfileVersion: 3, requires: true, packages };
}

/** An empty project that installs the tarballs as a user does, without dev dependencies, from the npm cache. */
async function installInto(project: string, tarballs: Tarball[], checkoutLock: { packages: Record<string, LockEntry> }): Promise<void> {
  const dependencies = Object.fromEntries(tarballs.map(({ manifest, packed }) => [manifest.name, `file:${packed.filename}`]));
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'sbkit-consumer', private: true, type: 'module', dependencies }));
  await writeFile(join(project, 'package-lock.json'), JSON.stringify(consumerLock(checkoutLock, tarballs)));
  const install = await run(NPM, ['ci', '--offline', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], project, 300_000);
  assert.equal(install.code, 0, `npm ci of ${Object.keys(dependencies).join(' and ')} failed:\n${install.stderr}`);
}

/** The installed packages (each folder of node_modules with a package.json, at any depth) and the bytes of all files there. */
async function footprint(project: string): Promise<{ packages: string[]; bytes: number }> {
  const modules = join(project, 'node_modules');
  const packages: string[] = [];
  let bytes = 0;
  for (const entry of await readdir(modules, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
    const folder = relative(modules, entry.parentPath);
    if (entry.name === 'package.json' && /^(?:.*\/node_modules\/)?(?:@[^/]+\/)?[^/@][^/]*$/.test(folder)) packages.push(folder);
  }
  return { packages: packages.sort(), bytes };
}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;

/** The names each entry point of the sources exports, for the entries the built packages must offer. */
async function sourceExports(entries: Record<string, string>): Promise<Record<string, string[]>> {
  const names: Record<string, string[]> = {};
  for (const [specifier, source] of Object.entries(entries)) {
    const exported = Object.keys((await import(source)) as object).sort();
    assert.ok(exported.length > 0, `${source} exports nothing`);
    names[specifier] = exported;
  }
  return names;
}

interface Seen {
  exports: Record<string, string[]>;
  canonical: string;
  expressions: { expression: string; sha256: string; prefix: string }[];
  invalid: { name: string; isInvalidUrlError: boolean };
  classes: { client: number; browserClient: number; error: number };
  node: string;
}

/** exports.mjs in `project`: the entry points imported from plain JavaScript, the captured expression through the pipeline. */
async function importEntries(project: string, specifiers: string[]): Promise<Seen> {
  const result = await run(process.execPath, ['exports.mjs', `http://${CAPTURED_EXPRESSION}`, ...specifiers], project);
  assert.equal(result.code, 0, result.stderr);
  const seen = JSON.parse(result.stdout) as Seen;
  assert.equal(seen.canonical, `http://${CAPTURED_EXPRESSION}`);
  assert.deepEqual(seen.expressions[0], {
    expression: CAPTURED_EXPRESSION,
    sha256: CAPTURED_SHA256,
    prefix: CAPTURED_SHA256.slice(0, 8),
  });
  assert.deepEqual(seen.invalid, { name: 'InvalidUrlError', isInvalidUrlError: true });
  assert.equal(seen.node, process.version, 'the consumer ran on another Node than the test');
  return seen;
}

/** tsc over one file of `project` with a strict consumer's options; the result of the compiler. */
async function typeCheck(project: string, file: string, resolution: 'nodenext' | 'bundler'): Promise<Run> {
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
  const config = `tsconfig.${file}.${resolution}.json`;
  await writeFile(join(project, config), JSON.stringify({ compilerOptions, files: [file] }));
  // sbkit's declarations take fastify's and node-redis's with them: minutes for tsc on a loaded machine.
  return run(process.execPath, [TSC, '-p', config], project, 300_000);
}

let work: string;
/** @sbkit/client installed alone. */
let lean: string;
/** sbkit installed, and @sbkit/client with it. */
let full: string;
let sbkit: Tarball;
let client: Tarball;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'sbkit-consumer-'));
  lean = join(work, 'client-only');
  full = join(work, 'server');
  const checkoutLock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  for (const project of [lean, full]) await mkdir(project);
  sbkit = {
    manifest: JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Tarball['manifest'],
    packed: await pack(ROOT, '--pack-destination', work),
  };
  client = {
    manifest: JSON.parse(await readFile(join(CLIENT_ROOT, 'package.json'), 'utf8')) as Tarball['manifest'],
    packed: await pack(CLIENT_ROOT, '--pack-destination', work),
  };
  // Each project names the tarballs one folder up, where they were packed.
  const above = (tarball: Tarball): Tarball => ({ ...tarball, packed: { ...tarball.packed, filename: `../${tarball.packed.filename}` } });
  await installInto(lean, [above(client)], checkoutLock);
  await installInto(full, [above(client), above(sbkit)], checkoutLock);
  for (const [project, files] of [
    [lean, ['exports.mjs', 'client.ts']],
    [full, ['exports.mjs', 'use.ts', 'wrong.ts']],
  ] as const) {
    for (const file of files) await copyFile(join(CONSUMER, file), join(project, file));
  }
});

after(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The files `npm pack` puts in the tarball of the package in `folder`. */
const packedFiles = async (folder: string) => (await pack(folder, '--dry-run')).files.map((file) => file.path);

/** A tarball's files: package.json, README and LICENSE and every one of `needed`, none `unneeded` matches, no TypeScript source. */
function assertHolds(paths: string[], needed: string[], unneeded: RegExp): void {
  assert.deepEqual(
    ['package.json', 'README.md', 'LICENSE', ...needed].filter((path) => !paths.includes(path)),
    [],
    'missing from the tarball',
  );
  assert.deepEqual(
    paths.filter((path) => unneeded.test(path)),
    [],
    'files a user does not need',
  );
  assert.ok(
    paths.filter((path) => path.endsWith('.ts')).every((path) => path.endsWith('.d.ts')),
    'TypeScript sources in the tarball',
  );
}

describe('the packed tarballs', () => {
  it('sbkit holds the server, the CLI, its entry points, README, LICENSE, CHANGELOG, SECURITY and docs, and nothing of the workshop', async () => {
    const needed = [
      'CHANGELOG.md',
      'SECURITY.md',
      'dist/cli/bin.js',
      'dist/cli/bin.js.map',
      'dist/server/index.js',
      'dist/server/index.d.ts',
    ];
    const entryPoints = ['dist/index.js', 'dist/index.d.ts', 'dist/client/index.d.ts', 'dist/url/index.d.ts', 'dist/browser.d.ts'];
    assertHolds(await packedFiles(ROOT), [...needed, ...entryPoints, 'docs/api.md', 'docs/client-library.md'], WORKSHOP);
  });

  it('@sbkit/client holds the client and the layers below it, README and LICENSE, and none of the server, the CLI or the workshop', async () => {
    const entryPoints = [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.js.map',
      'dist/client/index.d.ts',
      'dist/url/index.d.ts',
      'dist/browser.js',
    ];
    assertHolds(await packedFiles(CLIENT_ROOT), entryPoints, new RegExp(`${WORKSHOP.source}|^dist/(server|cli)/|^docs/`));
  });

  it('no module is in both: sbkit takes the client from @sbkit/client, and re-exports it from its four entry points', async () => {
    const modules = (paths: string[]) => paths.filter((path) => path.startsWith('dist/') && path.endsWith('.js'));
    const clientModules = new Set(modules(await packedFiles(CLIENT_ROOT)));
    assert.deepEqual(
      modules(await packedFiles(ROOT))
        .filter((path) => clientModules.has(path))
        .sort(),
      ['dist/browser.js', 'dist/client/index.js', 'dist/index.js', 'dist/url/index.js'],
    );
  });
});

describe('@sbkit/client installed alone, as a library user who only checks URLs does', () => {
  it(`pulls at most ${CLIENT_BUDGET.packages} packages and ${megabytes(CLIENT_BUDGET.bytes)} with --omit=dev, itself counted`, async (t) => {
    const { packages, bytes } = await footprint(lean);
    t.diagnostic(`client only: ${packages.length} packages, ${megabytes(bytes)}: ${packages.join(', ')}`);
    assert.ok(packages.includes('@sbkit/client'), `@sbkit/client is not among the installed packages: ${packages.join(', ')}`);
    assert.ok(packages.length <= CLIENT_BUDGET.packages, `${packages.length} packages: ${packages.join(', ')}`);
    assert.ok(bytes <= CLIENT_BUDGET.bytes, `${megabytes(bytes)} installed`);
    const server = await footprint(full);
    t.diagnostic(`sbkit with the client: ${server.packages.length} packages, ${megabytes(server.bytes)}`);
  });

  it("brings none of the server's or the CLI's dependencies, and no dev tooling", async () => {
    const { packages } = await footprint(lean);
    assert.deepEqual(
      packages.filter((name) =>
        [...SERVER_PACKAGES, 'sbkit', 'tsx', 'typescript', 'esbuild'].some((other) => name.split('/node_modules/').at(-1) === other),
      ),
      [],
    );
  });

  it('imports every export of its four entry points from a plain .mjs file, and runs one URL through the pipeline', async () => {
    const entries = {
      '@sbkit/client': '../../src/index.ts',
      '@sbkit/client/client': '../../src/client/index.ts',
      '@sbkit/client/url': '../../src/url/index.ts',
      '@sbkit/client/browser': '../../src/browser.ts',
    };
    const seen = await importEntries(lean, Object.keys(entries));
    assert.deepEqual(seen.exports, await sourceExports(entries));
    assert.deepEqual(seen.classes, { client: 1, browserClient: 1, error: 1 }, 'the entry points must share one module each, not copies');
  });

  it('is required by a CommonJS program (Node 22.12 and later load ES modules with require)', async () => {
    const program = "const { canonicalizeUrl } = require('@sbkit/client'); console.log(canonicalizeUrl('HTTP://Example.COM/a/../b'));";
    const result = await run(process.execPath, ['--no-warnings', '--input-type=commonjs', '--eval', program], lean);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'http://example.com/b\n');
  });

  it('type-checks a strict TypeScript consumer against its declarations alone', async () => {
    const clean = await typeCheck(lean, 'client.ts', 'nodenext');
    assert.equal(clean.code, 0, `client.ts does not compile:\n${clean.stdout}${clean.stderr}`);
  });
});

describe('sbkit installed with @sbkit/client, as a server operator does', () => {
  it('installs without TypeScript or tsx: the installed package runs compiled JavaScript only', async () => {
    for (const tool of ['tsx', 'typescript', 'esbuild']) {
      await assert.rejects(stat(join(full, 'node_modules', tool)), `${tool} was installed with the package`);
    }
    const manifest = JSON.parse(await readFile(join(full, 'node_modules', 'sbkit', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    assert.match(await readFile(join(full, 'node_modules', 'sbkit', manifest.bin['sbkit']!), 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it("imports every export of every entry point from a plain .mjs file, each of the client's being @sbkit/client's", async () => {
    const entries = {
      sbkit: '../../src/index.ts',
      'sbkit/client': '../../src/client/index.ts',
      'sbkit/server': '../../src/server/index.ts',
      'sbkit/url': '../../src/url/index.ts',
      'sbkit/browser': '../../src/browser.ts',
    };
    const clientEntries = ['@sbkit/client', '@sbkit/client/client', '@sbkit/client/url', '@sbkit/client/browser'];
    const seen = await importEntries(full, [...Object.keys(entries), ...clientEntries]);
    const expected = await sourceExports(entries);
    for (const specifier of Object.keys(entries)) assert.deepEqual(seen.exports[specifier], expected[specifier], `exports of ${specifier}`);
    for (const specifier of clientEntries) {
      assert.deepEqual(seen.exports[specifier], seen.exports[specifier.replace('@sbkit/client', 'sbkit')], `exports of ${specifier}`);
    }
    // One class across sbkit, sbkit/client, sbkit/server and @sbkit/client: instanceof holds whichever entry a program imports from.
    assert.deepEqual(
      seen.classes,
      { client: 1, browserClient: 1, error: 1 },
      'sbkit and @sbkit/client must share one module each, not copies',
    );
  });

  for (const resolution of ['nodenext', 'bundler'] as const) {
    it(`type-checks a strict TypeScript consumer against the shipped declarations (moduleResolution ${resolution})`, async () => {
      const clean = await typeCheck(full, 'use.ts', resolution);
      assert.equal(clean.code, 0, `use.ts does not compile:\n${clean.stdout}${clean.stderr}`);
      // The declarations must carry real types: a wrong use is an error, not an `any` that passes.
      const wrong = await typeCheck(full, 'wrong.ts', resolution);
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stdout, /wrong\.ts\(5,14\): error TS2322: Type 'string' is not assignable to type 'number'/);
    });
  }

  it(
    'runs `npx sbkit expressions`, and `npx sbkit check` against `npx sbkit serve` (exit 1 for the phishing test page)',
    { timeout: 120_000 },
    async () => {
      const expressions = await run(NPX, ['sbkit', 'expressions', `http://${CAPTURED_EXPRESSION}`], full);
      assert.equal(expressions.code, 0, expressions.stderr);
      assert.match(
        expressions.stdout,
        new RegExp(`${CAPTURED_EXPRESSION}\\s+${CAPTURED_SHA256.slice(0, 8)}\\s+v9APjg==\\s+${CAPTURED_SHA256}`),
      );

      // In a process group of its own: npx does not pass signals on to the command it runs, so the group
      // is what is stopped.
      const server = spawn(NPX, ['sbkit', 'serve', '--port', '0'], {
        cwd: full,
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
        const check = await run(NPX, ['sbkit', 'check', '--server', url, PHISHING_TEST_URL], full);
        assert.equal(check.code, 1, `${check.stdout}${check.stderr}`);
        assert.match(check.stdout, /^UNSAFE\s+http:\/\/testsafebrowsing\.appspot\.com\/s\/phishing\.html: suspected social engineering/);
      } finally {
        process.kill(-server.pid!, 'SIGTERM');
      }
    },
  );
});
