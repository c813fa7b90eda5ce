// The generated code is committed (no build step at run time), so it must be exactly what `npm run
// generate` produces from the .proto files: a .proto edited without regenerating fails here.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { after, it } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const committed = join(root, 'src', 'proto', 'gen');
const scratch = mkdtempSync(join(tmpdir(), 'sbkit-generate-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function filesUnder(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), readFileSync(path, 'utf8'));
  }
  return files;
}

it('buf generate reproduces src/proto/gen exactly', () => {
  const bin = join(root, 'node_modules', '.bin');
  const run = spawnSync(join(bin, 'buf'), ['generate', '--output', scratch], {
    cwd: root,
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  const fresh = filesUnder(join(scratch, 'src', 'proto', 'gen'));
  const current = filesUnder(committed);
  assert.deepEqual([...current.keys()].sort(), [...fresh.keys()].sort());
  for (const [path, text] of fresh) assert.equal(current.get(path), text, `${path} differs: run npm run generate`);
});
