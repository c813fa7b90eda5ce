// Every code sample of the README and docs/, compiled and run, so that the docs and the code cannot
// drift. Fenced `ts` and `js` blocks are type-checked as a user's compiler sees the package (its
// declarations in dist/, through `import … from 'sbkit'`), then run with Node. Placeholders become real
// things on loopback, as in commands.test.ts: SB_SERVER and https://sb.example.org are a local sbkit
// server, SB_KEY a key, PORT 0, sbkit.json a configuration written here. A sample that starts a server
// must say it listens; any other must end with status 0 without a URL left UNKNOWN. Firefox's user.js
// blocks run with user_pref() collecting the preferences, which must be well formed.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { demoCatalog } from '../server/fixture.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Sample {
  /** Where it is: file and line of its opening fence. */
  where: string;
  language: 'ts' | 'js';
  code: string;
}

/** The fenced `ts` and `js` blocks of a Markdown text, indentation of list items removed. */
function samplesIn(markdown: string, file: string): Sample[] {
  const samples: Sample[] = [];
  for (const match of markdown.matchAll(/^( *)```(ts|js)\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1]!.length;
    const line = markdown.slice(0, match.index).split('\n').length;
    const code = match[3]!
      .split('\n')
      .map((l) => l.slice(indent))
      .join('\n');
    samples.push({ where: `${file}:${line}`, language: match[2] as 'ts' | 'js', code });
  }
  return samples;
}

async function documentedSamples(): Promise<Sample[]> {
  const files = ['README.md', ...(await readdir(join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: Sample[] = [];
  for (const file of files) found.push(...samplesIn(await readFile(join(ROOT, file), 'utf8'), file));
  return found;
}

const isUserJs = (sample: Sample) => /^user_pref\(/m.test(sample.code);

let server: SafeBrowsingServer;
let serverUrl: string;
let dir: string;
let samples: Sample[];
/** Per runnable sample, its compiled file; filled by the compile test. */
const compiled = new Map<Sample, string>();
let compileOutput = '';

before(async () => {
  samples = await documentedSamples();
  server = createServer({ catalog: demoCatalog(), port: 0 });
  serverUrl = await server.listen();
  dir = await mkdtemp(join(tmpdir(), 'sbkit-samples-'));
  // The packages as a user installs them: node_modules/sbkit is this checkout (dist/ and its exports),
  // node_modules/@sbkit/client its packages/client; and Google's npm client, which the samples of
  // docs/migrating-from-v4.md point at an sbkit server.
  await mkdir(join(dir, 'node_modules', '@sbkit'), { recursive: true });
  await mkdir(join(dir, 'node_modules', '@googleapis'), { recursive: true });
  await symlink(ROOT, join(dir, 'node_modules', 'sbkit'), 'dir');
  await symlink(join(ROOT, 'packages', 'client'), join(dir, 'node_modules', '@sbkit', 'client'), 'dir');
  await symlink(join(ROOT, 'node_modules', '@googleapis', 'safebrowsing'), join(dir, 'node_modules', '@googleapis', 'safebrowsing'), 'dir');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    join(dir, 'sbkit.json'),
    JSON.stringify({ lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['evil.example/'] }] }] }),
  );
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        allowJs: true,
        checkJs: true,
        skipLibCheck: true,
        outDir: 'out',
        rootDir: '.',
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        types: ['node'],
      },
      include: ['sample-*'],
    }),
  );
  for (const [i, sample] of samples.filter((s) => !isUserJs(s)).entries()) {
    const name = `sample-${i}.${sample.language}`;
    // The server of the browser sample is a placeholder; the others read SB_SERVER.
    await writeFile(join(dir, name), `// ${sample.where}\n${sample.code.replaceAll('https://sb.example.org', serverUrl)}`);
    compiled.set(sample, join(dir, 'out', `sample-${i}.js`));
  }
  compileOutput = await new Promise<string>((resolve) =>
    execFile(process.execPath, [TSC, '-p', dir], { cwd: dir }, (_error, stdout, stderr) => resolve(`${stdout}${stderr}`)),
  );
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a compiled sample in the folder: a server until it listens (then stops it), anything else to its end. */
function run(file: string, server = serverUrl): Promise<{ status: number | null; listening: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      cwd: dir,
      env: { ...process.env, SB_SERVER: server, SB_KEY: 'sample-key', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let listening = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if (!listening && /listening on http/.test(output)) {
        listening = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, listening, output });
    });
  });
}

describe('the code samples of the documentation', () => {
  it('are found in the README and docs/', () => {
    const where = samples.map((s) => s.where.replace(/:\d+$/, ''));
    for (const file of [
      'README.md',
      'docs/client-library.md',
      'docs/errors.md',
      'docs/browser.md',
      'docs/firefox.md',
      'docs/migrating-from-v4.md',
    ])
      assert.ok(where.includes(file), `a sample in ${file}`);
    assert.ok(samples.length >= 7, `${samples.length} samples`);
  });

  it("compile against the package's declarations", () => {
    assert.equal(compileOutput, '', compileOutput);
  });

  it('run against a server on loopback, and no URL they check is left UNKNOWN', { timeout: 180_000 }, async () => {
    for (const [sample, file] of compiled) {
      const { status, listening, output } = await run(file);
      if (/\.listen\(/.test(sample.code)) {
        assert.ok(listening, `${sample.where} starts a server:\n${output}`);
        continue;
      }
      assert.equal(status, 0, `${sample.where}:\n${output}`);
      assert.doesNotMatch(output, /UNKNOWN|not checked/, `${sample.where}:\n${output}`);
    }
  });

  it("of the README's client says UNKNOWN, not SAFE, when its server cannot be reached", async () => {
    const [readme] = [...compiled].find(([sample]) => sample.where.startsWith('README.md:'))!;
    const { status, output } = await run(compiled.get(readme)!, 'http://127.0.0.1:9');
    assert.equal(status, 0, output);
    assert.match(output, /^UNKNOWN: not checked: cannot reach http:\/\/127\.0\.0\.1:9\//m);
    assert.doesNotMatch(output, /^SAFE/m);
  });

  it("of Firefox's user.js set well-formed preferences, the provider's URLs on the server", () => {
    const blocks = samples.filter(isUserJs);
    assert.ok(blocks.length >= 2);
    for (const sample of blocks) {
      const prefs = new Map<string, unknown>();
      runInNewContext(sample.code, { user_pref: (name: string, value: unknown) => prefs.set(name, value) });
      assert.ok(prefs.size > 5, sample.where);
      for (const [name, value] of prefs) {
        assert.match(name, /^[\w.-]+$/, `${sample.where}: ${name}`);
        assert.ok(['string', 'boolean', 'number'].includes(typeof value), `${sample.where}: ${name}`);
        if (/URL$/.test(name) && value !== '') assert.ok(URL.canParse(value as string), `${sample.where}: ${name} = ${String(value)}`);
      }
      const served = [...prefs].filter(([name, value]) => /(update|gethash)URL$/.test(name) && value !== '');
      assert.ok(served.length >= 2 && served.every(([, value]) => (value as string).startsWith('http://127.0.0.1:8080/v')), sample.where);
    }
  });
});
