// Each command loads what it runs and no more: `sbkit --version` and `--help` load only the command
// line parser, and `sbkit check` none of the server's dependencies. Measured on the compiled CLI in a
// child process, from the CommonJS modules it loaded (fastify, node-redis, prom-client and the others
// are CommonJS, so each one loaded shows in the module cache).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const BIN = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
/** Node's CommonJS module cache (require.cache) as it stands at exit, on a line of standard error. */
const REPORT_LOADED =
  'data:text/javascript,import m from"node:module";process.on("exit",()=>process.stderr.write("\\nloaded="+JSON.stringify(Object.keys(m._cache))+"\\n"))';
const SERVER_PACKAGES = ['fastify', 'redis', '@redis', 'prom-client', 'isbot', 'crawler-user-agents', 'cli-progress', 'pino'];

/** The packages of node_modules whose CommonJS modules `sbkit …args` loaded. */
async function packagesLoaded(args: string[]): Promise<Set<string>> {
  const { stderr } = await promisify(execFile)(process.execPath, ['--import', REPORT_LOADED, BIN, ...args]).catch(
    (error: { stderr: string }) => error,
  );
  const line = /loaded=(.*)/.exec(stderr);
  assert.ok(line !== null, `no report of loaded modules: ${stderr}`);
  const files = JSON.parse(line[1]!) as string[];
  return new Set(files.flatMap((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? []));
}

describe('what each command loads', () => {
  it('--version and --help load the command line parser and nothing else', async () => {
    assert.deepEqual([...(await packagesLoaded(['--version']))], ['commander']);
    assert.deepEqual([...(await packagesLoaded(['check', '--help']))], ['commander']);
  });

  it("check loads none of the server's dependencies", async () => {
    // No server listens on port 9 (discard): the check fails, which is enough to load its code.
    const loaded = await packagesLoaded(['check', '--server', 'http://127.0.0.1:9', '--timeout', '2000', 'http://example.com/']);
    assert.deepEqual(
      SERVER_PACKAGES.filter((name) => [...loaded].some((p) => p === name || p.startsWith(`${name}/`))),
      [],
    );
  });

  it('serve does load them: the measure would see them', async () => {
    // TEST-NET-3 is no address of this machine: the server is made, then fails to listen.
    const loaded = await packagesLoaded(['serve', '--port', '0', '--host', '203.0.113.1']);
    assert.ok(loaded.has('fastify'), `fastify not seen: ${[...loaded].join(', ')}`);
  });
});
