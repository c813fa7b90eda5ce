// The two packages' manifests against the JavaScript `npm run build` puts in them: each declares exactly
// the packages its modules import (one missing breaks an install, one too many weighs on every user's),
// and sbkit takes the client from @sbkit/client at its own version, through modules that exist there.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Manifest {
  name: string;
  version: string;
  engines: { node: string };
  dependencies: Record<string, string>;
}

interface Package {
  folder: string;
  manifest: Manifest;
}

const read = async (folder: string): Promise<Package> => ({
  folder,
  manifest: JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as Manifest,
});
const sbkit = await read(ROOT);
const client = await read(join(ROOT, 'packages', 'client'));

/** Every module specifier of a static import or export, a side-effect import and a dynamic import. */
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*(['"])([^'"]+)\1|^\s*import\s*(['"])([^'"]+)\3|\bimport\(\s*(['"])([^'"]+)\5\s*\)/gm;

/** The specifiers a package's compiled modules import that are neither relative nor Node's. */
async function bareImports({ folder }: Package): Promise<Set<string>> {
  const dist = join(folder, 'dist');
  const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith('.js'));
  assert.ok(files.length > 50, `only ${files.length} compiled files in ${dist}: run "npm run build" first`);
  const found = new Set<string>();
  for (const file of files) {
    for (const match of (await readFile(join(dist, file), 'utf8')).matchAll(IMPORT)) {
      const specifier = match[2] ?? match[4] ?? match[6]!;
      if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !builtinModules.includes(specifier)) found.add(specifier);
    }
  }
  return found;
}

/** The package a specifier names: `@scope/name` or `name`, without the path inside it. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('the packages built from src/', () => {
  for (const pkg of [client, sbkit]) {
    it(`${pkg.manifest.name} declares exactly the packages its modules import`, async () => {
      const imported = [...new Set([...(await bareImports(pkg))].map(packageOf))].sort();
      assert.deepEqual(imported, Object.keys(pkg.manifest.dependencies).sort());
    });
  }

  it('sbkit depends on @sbkit/client at its own version, and both admit the same Node', () => {
    assert.equal(client.manifest.name, '@sbkit/client');
    assert.equal(client.manifest.version, sbkit.manifest.version);
    assert.equal(sbkit.manifest.dependencies[client.manifest.name], sbkit.manifest.version);
    assert.deepEqual(client.manifest.engines, sbkit.manifest.engines);
    for (const [name, version] of Object.entries(client.manifest.dependencies)) {
      assert.equal(sbkit.manifest.dependencies[name] ?? version, version, `${name} pinned differently in the two packages`);
    }
  });

  it("every module of @sbkit/client that sbkit's import is in @sbkit/client", async () => {
    const internal = `${client.manifest.name}/internal/`;
    const named = [...(await bareImports(sbkit))].filter((specifier) => specifier.startsWith(internal));
    assert.ok(named.length > 10, `sbkit imports only ${named.length} modules of the client`);
    assert.deepEqual(
      named.filter((specifier) => !existsSync(join(client.folder, 'dist', specifier.slice(internal.length)))),
      [],
    );
  });
});
