// `npm run build`: src/ → two packages, compiled once, as ESM JavaScript with declarations and source
// maps, from scratch, so that nothing of a module since removed lingers in either.
//
//   packages/client/dist/  @sbkit/client: every module its entries (packages/client/package.json
//                          "exports") reach, down through the layers, and nothing else
//   dist/                  sbkit: the server and the CLI, the modules of the lower layers only they use
//                          (the OHTTP gateway's HPKE, the server's side of the wire), and its entries
//                          sbkit, sbkit/client, sbkit/url and sbkit/browser as re-exports of @sbkit/client
//
// A library user installs @sbkit/client and its two dependencies alone; sbkit depends on it at the same
// version, so that a program holding both holds one copy of every class (docs/architecture.md).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const clientRoot = join(root, 'packages', 'client');
const clientDist = join(clientRoot, 'dist');
const client = JSON.parse(readFileSync(join(clientRoot, 'package.json'), 'utf8'));
/** Where sbkit's modules import the client's from: an export of @sbkit/client for sbkit alone, at the same version. */
const INTERNAL = `${client.name}/internal/`;

rmSync(dist, { recursive: true, force: true });
rmSync(clientDist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

/** Every `from '…'`, `import('…')` and `import '…'` of a relative module, in JavaScript and declarations. */
const relativeImport = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\2/g;
const emitted = (dir) =>
  readdirSync(dir, { recursive: true }).filter((entry) => entry.endsWith('.js') || entry.endsWith('.d.ts') || entry.endsWith('.js.map'));
/** A module's name within dist/: its path without `.js` or `.d.ts`. */
const moduleOf = (file) => file.replace(/\.(js|d\.ts|js\.map)$/, '');
/** The module a relative specifier of `file` names. */
const target = (file, specifier) => moduleOf(join(dirname(file), specifier));
const rewriteImports = (file, rewrite) => {
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  const fixed = text.replace(relativeImport, (whole, lead, quote, specifier) => {
    const replaced = rewrite(specifier);
    return replaced === specifier ? whole : `${lead}${quote}${replaced}${quote}`;
  });
  if (fixed !== text) writeFileSync(path, fixed);
};

// tsc rewrites relative `.ts` imports to `.js` in the JavaScript it emits but not in declarations
// (TypeScript issue 61037). tsc itself follows them; editors and older tools do not, so they are
// rewritten here to name the files that exist.
for (const file of emitted(dist).filter((entry) => entry.endsWith('.d.ts'))) {
  rewriteImports(file, (specifier) => specifier.replace(/\.ts$/, '.js'));
}

// The client's modules: its entries and all they import, values and types alike (a declaration that
// names a missing module would leave a consumer's compiler without the type).
const entries = Object.values(client.exports).flatMap((exported) => {
  const file = typeof exported === 'string' ? exported : exported.default;
  return file.includes('*') || !file.startsWith('./dist/') ? [] : [moduleOf(file.slice('./dist/'.length))];
});
const clientModules = new Set();
for (const pending = [...entries]; pending.length > 0;) {
  const module = pending.pop();
  if (clientModules.has(module)) continue;
  clientModules.add(module);
  for (const file of [`${module}.js`, `${module}.d.ts`].filter((f) => existsSync(join(dist, f)))) {
    for (const [, , , specifier] of readFileSync(join(dist, file), 'utf8').matchAll(relativeImport)) pending.push(target(file, specifier));
  }
}

// They move to the client's package; a source map keeps pointing at its source from its new place.
for (const file of emitted(dist).filter((entry) => clientModules.has(moduleOf(entry)))) {
  const from = join(dist, file);
  const to = join(clientDist, file);
  mkdirSync(dirname(to), { recursive: true });
  if (file.endsWith('.map')) {
    const map = JSON.parse(readFileSync(from, 'utf8'));
    map.sources = map.sources.map((source) => relative(dirname(to), join(dirname(from), source)));
    writeFileSync(to, JSON.stringify(map));
    rmSync(from);
  } else {
    renameSync(from, to);
  }
}
for (const folder of readdirSync(dist, { recursive: true }).sort().reverse()) {
  if (statSync(join(dist, folder)).isDirectory() && readdirSync(join(dist, folder)).length === 0) rmdirSync(join(dist, folder));
}

// What stays imports them from @sbkit/client, and sbkit's entries that were the client's re-export it.
for (const file of emitted(dist).filter((entry) => !entry.endsWith('.map'))) {
  rewriteImports(file, (specifier) => {
    const module = target(file, specifier);
    return clientModules.has(module) ? `${INTERNAL}${module}.js` : specifier;
  });
}
for (const [subpath, exported] of Object.entries(client.exports)) {
  if (typeof exported === 'string') continue;
  const module = moduleOf(exported.default.slice('./dist/'.length));
  const path = subpath.slice(1);
  const reexport = `// sbkit${path} is ${client.name}${path}: one copy of the client for both packages.\nexport * from '${client.name}${path}';\n`;
  mkdirSync(dirname(join(dist, module)), { recursive: true });
  writeFileSync(join(dist, `${module}.js`), reexport);
  writeFileSync(join(dist, `${module}.d.ts`), reexport);
}

// In a checkout, sbkit's modules find @sbkit/client through the link npm makes for the workspace.
const linked = join(root, 'node_modules', ...client.name.split('/'));
if (!existsSync(linked) || realpathSync(linked) !== realpathSync(clientRoot)) {
  console.error(`${linked} does not lead to packages/client: run "npm install" (or "npm ci"), which links the workspace`);
  process.exitCode = 1;
}

// The command runs as a program (`npx sbkit` in a checkout, `./dist/cli/bin.js`): tsc writes it without the run bit.
chmodSync(join(dist, 'cli', 'bin.js'), 0o755);
