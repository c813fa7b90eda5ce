// The API reference (`npm run docs`) is TypeDoc over the package's entry points. Its validation fails on
// any public export, or member of one, that has no documentation comment, and on links that lead nowhere.
// TypeDoc's own type check of the program is skipped: `npm test` type-checks it (scripts/test.mjs).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
const TYPEDOC = join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc');

describe('the API reference', () => {
  it('documents every public export of every entry point, with no broken links', { timeout: 120_000 }, async () => {
    const result = await promisify(execFile)(process.execPath, [TYPEDOC, '--emit', 'none', '--skipErrorChecking'], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
    );
    const undocumented = result.output.split('\n').filter((line) => /does not have any documentation|Failed to resolve link/.test(line));
    assert.deepEqual(undocumented, [], 'exports without documentation, or links that lead nowhere');
    assert.equal(result.code, 0, result.output);
  });
});
