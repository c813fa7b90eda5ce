// `@sbkit/client/browser` (which `sbkit/browser` re-exports) as a web developer bundles it: esbuild for
// the browser platform, through the package's exports (packages/client/dist/, built by `npm test` first),
// minified, gzipped. No Node built-in may be reached, and the real-time client with the Public Suffix
// List and Oblivious HTTP must stay within 64 KB gzipped. The sizes are printed as diagnostics
// (docs/browser.md gives them).

import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

const ROOT = new URL('../../', import.meta.url).pathname;
const BUDGET_GZIPPED = 64 * 1024;

/** Minified and gzipped size of a program's bundle, and every import esbuild left outside it. */
async function bundle(program: string): Promise<{ gzipped: number; code: string; externals: string[] }> {
  const result = await build({
    stdin: { contents: program, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Built-ins are left outside, so that reaching one shows up below instead of failing resolution.
    external: ['node:*', ...builtinModules],
  });
  const code = result.outputFiles[0]!.text;
  const metafile: Metafile = result.metafile;
  const externals = Object.values(metafile.inputs).flatMap((input) => input.imports.filter((i) => i.external).map((i) => i.path));
  return { gzipped: gzipSync(code, { level: 9 }).length, code, externals };
}

const REAL_TIME = `
  import { SafeBrowsingClient } from '@sbkit/client/browser';
  const client = new SafeBrowsingClient({ server: 'http://127.0.0.1:8080' });
  globalThis.verdict = (url) => client.checkUrl(url);`;
const LOCAL = `
  import { SafeBrowsingClient } from '@sbkit/client/browser';
  const client = new SafeBrowsingClient({ server: 'http://127.0.0.1:8080', mode: 'local' });
  globalThis.verdict = (url) => client.checkUrl(url);`;

const size = (bytes: number) => `${bytes} bytes gzipped (${(bytes / 1024).toFixed(1)} KB)`;

describe('@sbkit/client/browser bundled for browsers', () => {
  it('reaches no Node built-in', async () => {
    const { externals, code } = await bundle(REAL_TIME);
    assert.deepEqual(externals, []);
    assert.doesNotMatch(code, /\bfrom\s*["']node:|import\(["']node:|require\(/);
  });

  it(`fits the real-time client, the Public Suffix List and Oblivious HTTP in ${BUDGET_GZIPPED / 1024} KB gzipped`, async (t) => {
    const { gzipped, code } = await bundle(REAL_TIME);
    t.diagnostic(`real-time client: ${size(gzipped)}`);
    // The relay is an option, so the encapsulation is in every client's bundle, and within its budget.
    assert.match(code, /message\/ohttp-req/);
    assert.match(code, /HPKE-v1/);
    // v4 is Node's (its table of lists is checked by Node's entry only).
    assert.doesNotMatch(code, /NoV4ListError/);
    assert.ok(gzipped <= BUDGET_GZIPPED, `${gzipped} bytes gzipped, more than ${BUDGET_GZIPPED}`);
    const local = await bundle(LOCAL);
    t.diagnostic(`local-list client: ${size(local.gzipped)}`);
    assert.ok(local.gzipped <= BUDGET_GZIPPED, `local mode: ${local.gzipped} bytes gzipped, more than ${BUDGET_GZIPPED}`);
  });

  it('is tree-shakeable: the URL pipeline alone carries none of the client', async (t) => {
    const { code: urlOnly, gzipped } = await bundle(`
      import { urlExpressions } from '@sbkit/client/browser';
      globalThis.expressions = urlExpressions;`);
    t.diagnostic(`urlExpressions alone: ${size(gzipped)}`);
    const { code: realTime } = await bundle(REAL_TIME);
    assert.match(realTime, /hashes:search/);
    assert.doesNotMatch(urlOnly, /hashes:search|indexedDB|HPKE-v1/);
    assert.ok(gzipped < 45 * 1024, `${gzipped} bytes gzipped for the URL pipeline alone`);
  });
});
