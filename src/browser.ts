/**
 * `sbkit/browser`: the Safe Browsing client for browsers, extensions, workers and edge runtimes — any
 * runtime with `fetch` and WebCrypto. The same client as `sbkit/client`, with WebCrypto for SHA-256 and
 * Oblivious HTTP, IndexedDB or memory for the lists, and fetch for HTTP; no Node built-in is imported.
 * v5 only.
 *
 * @packageDocumentation
 * @module sbkit/browser
 */
import { SafeBrowsingClientCore } from './client/client-core.ts';
import { BROWSER_OPTION_RULES, type BrowserStorageOptions, browserRuntime } from './client/runtime/browser-runtime.ts';
import { checkClientOptions } from './client/option-check.ts';
import { ClientOptionError } from './client/client-errors.ts';
import { isKeysUrl } from './client/transport/oblivious-http.ts';
import type { SafeBrowsingClientOptions } from './client/options.ts';

/**
 * The options of {@link SafeBrowsingClient} off Node: Node's, less the protocol and folders, plus storage.
 * `ohttp.keys` is the gateway's key URL or the configuration's bytes (there are no files).
 */
export interface BrowserClientOptions extends Omit<SafeBrowsingClientOptions, 'protocol' | 'dataDir' | 'readOnly'>, BrowserStorageOptions {}

/**
 * The Safe Browsing client off Node: real-time mode by default (the global cache list and the memory
 * cache kept locally, hash prefixes searched), local or no-storage mode on request.
 */
export class SafeBrowsingClient extends SafeBrowsingClientCore {
  /**
   * Makes a client; nothing is read or asked until {@link open}, {@link start}, {@link update} or a check.
   *
   * @throws {@link ClientOptionError} for options that cannot work here: a server that is no http(s) URL,
   *   a list name that is none, Node's options (`protocol: 'v4'` or `'webrisk'`, `encoding: 'json'`, `dataDir`,
   *   `readOnly`), and `ohttp` with keys in a file or where there is no WebCrypto (a page outside a
   *   secure context).
   */
  constructor(options: BrowserClientOptions = {}) {
    // Names, types and ranges first (the client checks them again), so that what follows reads sound values.
    checkClientOptions(options, BROWSER_OPTION_RULES);
    for (const nodeOnly of ['dataDir', 'readOnly'] as const) {
      if ((options as SafeBrowsingClientOptions)[nodeOnly] !== undefined)
        throw new ClientOptionError(`${nodeOnly} needs Node (sbkit/client); sbkit/browser keeps its lists with the storage option`, {
          option: nodeOnly,
        });
    }
    const { protocol } = options as SafeBrowsingClientOptions;
    if (protocol === 'v4' || protocol === 'webrisk')
      throw new ClientOptionError(`sbkit/browser speaks v5 only; the ${protocol} protocol needs Node (sbkit/client)`, {
        option: 'protocol',
      });
    if (options.encoding === 'json')
      throw new ClientOptionError('sbkit/browser speaks binary protobuf only; JSON needs Node (sbkit/client)', { option: 'encoding' });
    if (options.ohttp !== undefined) {
      if (typeof options.ohttp.keys === 'string' && !isKeysUrl(options.ohttp.keys))
        throw new ClientOptionError(
          `ohttp.keys must be the gateway's http(s) URL or its bytes off Node, not a file: ${options.ohttp.keys}`,
          { option: 'ohttp.keys' },
        );
      // Browsers give WebCrypto, and so X25519 and AES-GCM, to secure contexts only (https, localhost, extensions).
      if ((globalThis as { crypto?: { subtle?: unknown } }).crypto?.subtle === undefined)
        throw new ClientOptionError('ohttp needs WebCrypto, which browsers give secure contexts only (https, localhost, extensions)', {
          option: 'ohttp',
        });
    }
    super(options, browserRuntime(options));
  }
}

// What sbkit/client exports too (client/client-exports.ts), then what only this entry offers: the URL pipeline.
export * from './client/client-exports.ts';
export { canonicalizeUrl, parseCanonicalUrl, formatCanonicalUrl, type CanonicalUrl } from './url/canonicalize.ts';
export { urlExpressions, expressionsOf } from './url/expressions.ts';
export { hashPrefix } from './url/hash-string.ts';
