// Builds the page into a folder any static web server can serve: the script bundled by esbuild with
// sbkit's browser build, the page and stylesheet copied beside it.
//
//   npm run build && node examples/web/build.mjs [output folder, default examples/web/build]

import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = new URL('.', import.meta.url).pathname;
const out = process.argv[2] ?? join(here, 'build');

await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'check-link.js')],
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
});
for (const file of ['index.html', 'style.css']) await copyFile(join(here, file), join(out, file));
process.stdout.write(`${out}\n`);
