// `npm run build`: src/ → dist/ as ESM JavaScript with declarations and source maps, from scratch, so that
// nothing of a module since removed lingers in the package.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

// tsc rewrites relative `.ts` imports to `.js` in the JavaScript it emits but not in declarations
// (TypeScript issue 61037). tsc itself follows them; editors and older tools do not, so they are
// rewritten here to name the files that exist.
const relativeTs = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\.ts\2/g;
for (const entry of readdirSync(dist, { recursive: true })) {
  if (!entry.endsWith('.d.ts')) continue;
  const file = join(dist, entry);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(relativeTs, '$1$2$3.js$2');
  if (fixed !== text) writeFileSync(file, fixed);
}

// The command runs as a program (`npx sbkit` in a checkout, `./dist/cli/bin.js`): tsc writes it without the run bit.
chmodSync(join(dist, 'cli', 'bin.js'), 0o755);
