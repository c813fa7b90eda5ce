// The tests' build: TypeScript's compiler type-checks src/, test/ and bench/ (tsconfig.test.json) and
// writes them to .test-build/, relative `.ts` imports rewritten to `.js`, for scripts/test.mjs to run
// from JavaScript. Under tsx, each test process compiled its own modules again in loader hooks: a file
// importing the server started in 5–6 s instead of 2.4–3.2 s, about 40 % of the suite's time. This is
// also `npm test`'s type check: one pass of the checker, which emits at little more than its own cost.
// (esbuild writes the same files in about 2 s, but the type check would still take its own pass; its
// bundling mode, the only one that rewrites imports, turns top-level `const` into `var`; and it leaves
// `import(path)` of a computed `.ts` path as it is, where TypeScript rewrites it at run time.)
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

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

/**
 * Type-checks and compiles the project of `tsconfig` into its outDir, from scratch so that nothing of a
 * test since removed lingers. Prints the errors; returns the outDir, or undefined after an error.
 */
export function compileTests(tsconfig) {
  const report = (diagnostics) => {
    const format = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => dirname(tsconfig), getNewLine: () => '\n' };
    if (diagnostics.length > 0) console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, format));
  };
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => report([diagnostic]) };
  const config = ts.getParsedCommandLineOfConfigFile(tsconfig, undefined, host);
  if (config === undefined) return undefined;
  const { outDir } = config.options;
  if (outDir === undefined) {
    console.error(`${tsconfig} names no outDir for the compiled tests`);
    return undefined;
  }
  rmSync(outDir, { recursive: true, force: true });
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = program.emit(undefined, undefined, undefined, false, { before: [asFromSource] });
  const diagnostics = ts.sortAndDeduplicateDiagnostics([...config.errors, ...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]);
  report(diagnostics);
  return diagnostics.length === 0 ? outDir : undefined;
}
