// The test files of `npm test`, compiled once and run from JavaScript by Node's test runner.
//
// Compiling: TypeScript's compiler type-checks src/, test/ and bench/ (tsconfig.test.json) and writes them
// to .test-build/, the relative `.ts` imports rewritten to `.js`. Under tsx, each test process compiled its
// own modules again in loader hooks: a file importing the server started in 5–6 s instead of 2.4–3.2 s,
// about 40 % of the suite's time. Each compiled module keeps the `import.meta.url` (and `dirname`,
// `filename`) of its source, so that a test finds its fixtures, the docs and the sources it reads (or
// hands to esbuild or to a child under tsx) where they are, and `node --import tsx --test test/x.test.ts`
// runs the same file from source. A type error stops the run here, as `tsc --noEmit` did.
//
// Running: three files at once by default: much of a file's time is waiting (sockets, deadlines, a
// browser), so on a 2-core machine the runner's own default (cores − 1: one file at a time) leaves the
// cores idle. `SBKIT_TEST_CONCURRENCY` changes it.
//
// `SBKIT_TEST_TIER=quick` leaves out the end-to-end files listed below, which test what does not depend
// on the Node line running them twice would cover (CI runs them once, on Node 24: .ci/run).
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = new URL('..', import.meta.url).pathname;
const BUILD = '.test-build';

/** The slowest files, each a whole program or browser run: tarball, benchmark, chaos, Chromium, typedoc. */
const END_TO_END = new Set([
  'test/bench/chaos.test.ts',
  'test/bench/run.test.ts',
  'test/docs/api-reference.test.ts',
  'test/examples/browser-samples.test.ts',
  'test/package/package.test.ts',
]);

const tier = process.env['SBKIT_TEST_TIER'] ?? 'all';
if (tier !== 'all' && tier !== 'quick') {
  console.error(`SBKIT_TEST_TIER is "${tier}": write "all" (the default) or "quick" (without the end-to-end files)`);
  process.exit(2);
}
const concurrency = Number(process.env['SBKIT_TEST_CONCURRENCY'] ?? 3);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`SBKIT_TEST_CONCURRENCY is "${process.env['SBKIT_TEST_CONCURRENCY']}": write a whole number of files at once, 1 or more`);
  process.exit(2);
}

/** test/<area>/*.test.ts and test/<area>/<part>/*.test.ts, as the runner's glob would find them. */
function testFiles() {
  const found = [];
  for (const entry of readdirSync(join(root, 'test'), { recursive: true })) {
    const depth = entry.split('/').length;
    if (entry.endsWith('.test.ts') && (depth === 2 || depth === 3)) found.push(join('test', entry));
  }
  return found.sort();
}

/** The name after `import.meta.` when the node is `import.meta.<name>`, else undefined. */
function importMetaMember(node) {
  const isImportMeta = (expression) => ts.isMetaProperty(expression) && expression.keywordToken === ts.SyntaxKind.ImportKeyword;
  if (ts.isPropertyAccessExpression(node) && isImportMeta(node.expression)) return node.name.text;
  return undefined;
}

const RELATIVE_TS = /^\.\.?\/.*\.ts$/;

/**
 * A transformer that keeps each compiled module where its source is, for what is not compiled with it:
 * - `import.meta.url`, `.dirname` and `.filename` are those of the source file;
 * - a relative import of a file that is not compiled (bench/http-server.ts imports `../dist/…`, the built
 *   package) names the file beside the source;
 * - `import.meta.resolve('./x.ts')` names `./x.js`, the compiled module, as TypeScript rewrites
 *   `import('./x.ts')`: a test that starts a child on a module of the repository resolves it so, and
 *   runs it compiled here, or from source under tsx (`--import tsx`) when the test itself runs so.
 */
function asFromSource(context) {
  const { factory } = context;
  return (sourceFile) => {
    const source = { url: pathToFileURL(sourceFile.fileName).href, dirname: dirname(sourceFile.fileName), filename: sourceFile.fileName };
    const besideSource = (specifier) =>
      ts.isStringLiteral(specifier) && /^\.\.?\//.test(specifier.text) && !RELATIVE_TS.test(specifier.text)
        ? factory.createStringLiteral(new URL(specifier.text, source.url).href)
        : specifier;
    const visit = (node) => {
      const member = importMetaMember(node);
      if (member !== undefined && Object.hasOwn(source, member)) return factory.createStringLiteral(source[member]);
      if (ts.isImportDeclaration(node)) {
        const specifier = besideSource(node.moduleSpecifier);
        return factory.updateImportDeclaration(node, node.modifiers, node.importClause, specifier, node.attributes);
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
        const specifier = besideSource(node.moduleSpecifier);
        return factory.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, specifier, node.attributes);
      }
      const [specifier] = ts.isCallExpression(node) && importMetaMember(node.expression) === 'resolve' ? node.arguments : [];
      if (specifier !== undefined && ts.isStringLiteral(specifier) && RELATIVE_TS.test(specifier.text)) {
        const compiled = factory.createStringLiteral(specifier.text.replace(/\.ts$/, '.js'));
        return factory.updateCallExpression(node, node.expression, node.typeArguments, [compiled, ...node.arguments.slice(1)]);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitNode(sourceFile, visit);
  };
}

/** Type-checks and compiles into BUILD, from scratch so that no test since removed lingers; false on an error. */
function compile() {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => report([diagnostic]) };
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.test.json'), undefined, host);
  if (config === undefined) return false;
  rmSync(join(root, BUILD), { recursive: true, force: true });
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = program.emit(undefined, undefined, undefined, false, { before: [asFromSource] });
  const diagnostics = ts.sortAndDeduplicateDiagnostics([...config.errors, ...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]);
  report(diagnostics);
  return diagnostics.length === 0;
}

function report(diagnostics) {
  if (diagnostics.length === 0) return;
  const format = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => root, getNewLine: () => '\n' };
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, format));
}

const all = testFiles();
const missing = [...END_TO_END].filter((file) => !all.includes(file));
if (missing.length > 0) {
  console.error(`scripts/test.mjs names ${missing.join(', ')}, not found: update its END_TO_END list`);
  process.exit(2);
}
// Test files named on the command line (`node scripts/test.mjs test/a/b.test.ts …`) run instead of all of the tier.
const named = process.argv.slice(2).map((file) => normalize(file));
const unknown = named.filter((file) => !all.includes(file));
if (unknown.length > 0) {
  console.error(`not test files of test/: ${unknown.join(', ')}`);
  process.exit(2);
}
const chosen = named.length > 0 ? named : tier === 'all' ? all : all.filter((file) => !END_TO_END.has(file));
if (!compile()) process.exit(1);
const files = chosen.map((file) => join(BUILD, file.replace(/\.ts$/, '.js')));
const args = ['--test', `--test-concurrency=${concurrency}`, ...files];
const { status, signal } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(status ?? (signal === null ? 1 : 128));
