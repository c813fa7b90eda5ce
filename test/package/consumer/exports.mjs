// Run with plain node inside a project that installed the packed tarball: every entry point of the
// package, imported as a user imports it, and one URL through the pipeline. Prints JSON for the test.
import * as root from 'sbkit';
import * as client from 'sbkit/client';
import * as server from 'sbkit/server';
import * as url from 'sbkit/url';

const target = process.argv[2];
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
const names = (module) => Object.keys(module).sort();
console.log(
  JSON.stringify({
    exports: { root: names(root), client: names(client), server: names(server), url: names(url) },
    canonical: root.canonicalizeUrl(target),
    expressions,
    invalid,
    sameClass: root.SafeBrowsingClient === client.SafeBrowsingClient,
    node: process.version,
  }),
);
