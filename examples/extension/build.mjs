// Builds the extension into a folder Chromium loads (chrome://extensions, "Load unpacked"): the scripts
// bundled by esbuild with sbkit's browser build, the manifest, pages and stylesheet copied beside them.
//
//   npm run build && node examples/extension/build.mjs [output folder, default examples/extension/build]

import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const here = new URL('.', import.meta.url).pathname;
const out = process.argv[2] ?? join(here, 'build');

await mkdir(out, { recursive: true });
await build({
  entryPoints: ['service-worker', 'interstitial', 'advisory', 'options'].map((name) => join(here, 'src', `${name}.js`)),
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'chrome116',
  minify: true,
  // `sbkit/browser` is the package's own export (dist/, from `npm run build`), as an extension built
  // from the published package would take it.
  logLevel: 'warning',
});
for (const file of ['manifest.json', 'interstitial.html', 'advisory.html', 'options.html', 'style.css'])
  await copyFile(join(here, file), join(out, file));
process.stdout.write(`${out}\n`);
