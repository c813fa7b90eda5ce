/** A canonical URL taken apart; every part is already percent-escaped as SB-5 requires. */
export interface CanonicalUrl {
  /** The scheme, lower case: only web pages are checked. */
  scheme: 'http' | 'https';
  /** The host, lower case, without user, password or port: a name, dotted IPv4 or bracketed IPv6. */
  host: string;
  /** Starts with `/`. */
  path: string;
  /** Text after the first `?`, or undefined when there is no `?` at all (an empty query keeps its `?`). */
  query: string | undefined;
}
