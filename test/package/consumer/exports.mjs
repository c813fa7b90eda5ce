// Run with plain node inside a project that installed the packed tarballs: the entry points named after
// the URL, imported as a user imports them, and the URL through the pipeline of the first. Prints JSON
// for the test.
const [target, ...specifiers] = process.argv.slice(2);
const modules = Object.fromEntries(await Promise.all(specifiers.map(async (specifier) => [specifier, await import(specifier)])));
const root = modules[specifiers[0]];
const url = modules[specifiers.find((specifier) => specifier.endsWith('/url'))];
const expressions = root.urlExpressions(target).map((expression) => ({
  expression,
  sha256: root.expressionHash(expression),
  prefix: url.hashPrefix(url.expressionHash(expression)),
}));
let invalid;
try {
  root.canonicalizeUrl('mailto:someone@example.com');
} catch (error) {
  invalid = { name: error.name, isInvalidUrlError: error instanceof url.InvalidUrlError };
}
/** How many distinct values the entry points `only` keeps export under a name: one, where they share a module. */
const distinct = (name, only = () => true) =>
  new Set(specifiers.filter((s) => only(s) && name in modules[s]).map((s) => modules[s][name])).size;
const browser = (specifier) => specifier.endsWith('/browser');
console.log(
  JSON.stringify({
    exports: Object.fromEntries(specifiers.map((specifier) => [specifier, Object.keys(modules[specifier]).sort()])),
    canonical: root.canonicalizeUrl(target),
    expressions,
    invalid,
    classes: {
      client: distinct('SafeBrowsingClient', (s) => !browser(s)),
      browserClient: distinct('SafeBrowsingClient', browser),
      error: distinct('SbkitError'),
    },
    node: process.version,
  }),
);
