// tldts publishes its ECMAScript-module build as one minified file beside the CommonJS one that its
// `main` names. Importing that file spares Node the work of reading exports out of 200 KB of CommonJS
// (half the cost of loading the Public Suffix List); its types are those of the package's entry.
declare module 'tldts/dist/index.esm.min.js' {
  export { getPublicSuffix } from 'tldts';
}
