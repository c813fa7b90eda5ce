// tldts-icann (tldts with only the ICANN part of the Public Suffix List, the part SB-6 uses) publishes
// its ECMAScript-module build as one minified file beside the CommonJS one that its `main` names.
// Importing that file spares Node the work of reading exports out of CommonJS (half the cost of loading
// the Public Suffix List), and is what bundlers take for the browser build; its types are those of the
// package's entry.
declare module 'tldts-icann/dist/index.esm.min.js' {
  export { getPublicSuffix } from 'tldts-icann';
}
