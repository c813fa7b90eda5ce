// The client as Node programs use it: the runtime-neutral client (client-core.ts) with Node's parts.

import { SafeBrowsingClientCore } from './client-core.ts';
import { nodeRuntime } from './runtime/node-runtime.ts';
import type { SafeBrowsingClientOptions } from './options.ts';

export type { CheckResult } from './url-checks.ts';

/**
 * The Safe Browsing client: keeps the local lists current (RF and SB-12 rules), answers URL checks by
 * the SB-8 procedure of its mode, and never asks the server more often than the rules allow. On Node:
 * node:crypto for SHA-256, the local database in `dataDir`, node:http, Oblivious HTTP through a relay.
 * `sbkit/browser` has the same client for browsers, extensions and other runtimes with fetch and WebCrypto.
 */
export class SafeBrowsingClient extends SafeBrowsingClientCore {
  /**
   * Makes a client; nothing is read or asked until {@link open}, {@link start}, {@link update} or a check.
   *
   * @throws {@link ClientOptionError} for options that cannot work: real-time mode or Oblivious HTTP over
   *   v4, a server that is no http(s) URL, a list name that is none, a list v4 does not have.
   */
  constructor(options: SafeBrowsingClientOptions = {}) {
    super(options, nodeRuntime);
  }
}
