import { type ApiSettings, DEFAULT_API_SETTINGS } from './settings.ts';

/** What a configuration says about who may ask and what answers carry. */
export interface AccessOptions {
  /** When non-empty, every API request must carry one of these as `key=`. */
  apiKeys?: readonly string[];
  /** The bearer token of the operator endpoints. */
  adminToken?: string | undefined;
  /** The waits and cache durations the answers carry (SB-12, SB-8). */
  settings?: Partial<ApiSettings>;
}

/**
 * The part of a server's options that a reload changes while it serves (SIGHUP, service.ts): the API
 * keys, the answers' waits and cache durations, the admin token. The request path holds this object
 * and reads it at each request, so that an update is in force from the next request on, with no
 * connection dropped.
 */
export class LiveAccess {
  readonly apiKeys = new Set<string>();
  readonly settings: ApiSettings = { ...DEFAULT_API_SETTINGS };
  adminToken: string | undefined;

  constructor(options: AccessOptions) {
    this.update(options);
  }

  /** Replaces everything with `options`' (defaults for what they leave out). */
  update(options: AccessOptions): void {
    this.apiKeys.clear();
    for (const key of options.apiKeys ?? []) this.apiKeys.add(key);
    Object.assign(this.settings, DEFAULT_API_SETTINGS, options.settings);
    this.adminToken = options.adminToken;
  }
}
