import { getDomain } from 'tldts';
import { type CanonicalUrl, parseCanonicalUrl } from './canonicalize.ts';
import { isIpLiteral } from './host.ts';

/** SB-6 limits. */
export const MAX_HOSTS = 5;
export const MAX_PATHS = 6;
export const MAX_EXPRESSIONS = MAX_HOSTS * MAX_PATHS;
const MAX_SUFFIX_HOSTS = MAX_HOSTS - 1;
const MAX_PATH_PREFIXES = 4;

/**
 * The registrable domain (eTLD+1) of a canonical host. Only the ICANN part of the Public Suffix List
 * counts: for `user.github.io` the suffix `github.io/` is still checked, one more chance to match, as the
 * "last five components" rule of v4 would have done.
 */
function registrableDomain(host: string): string | null {
  return getDomain(host, {
    allowPrivateDomains: false,
    detectIp: false,
    extractHostname: false,
    mixedInputs: false,
    validateHostname: false,
  });
}

/**
 * SB-6 hosts: the exact host, then host suffixes from the longest down to the eTLD+1 — at most four of
 * them, built from the eTLD+1 by adding leading components — and none for IP literals.
 */
export function hostVariants(host: string): string[] {
  const hosts = [host];
  if (isIpLiteral(host)) return hosts;
  const domain = registrableDomain(host);
  if (domain === null || domain === host) return hosts;
  const extraLabels = host.slice(0, host.length - domain.length - 1).split('.');
  const suffixes = [domain];
  for (let i = extraLabels.length - 1; i >= 0 && suffixes.length < MAX_SUFFIX_HOSTS; i--) {
    suffixes.push(`${extraLabels[i]}.${suffixes[suffixes.length - 1]}`);
  }
  for (let i = suffixes.length - 1; i >= 0; i--) {
    if (suffixes[i] !== host) hosts.push(suffixes[i]!);
  }
  return hosts;
}

/**
 * SB-6 paths: the exact path with the query, the exact path, then prefixes from the root adding one
 * directory at a time, each with its trailing slash — at most four of those.
 */
export function pathVariants(path: string, query: string | undefined): string[] {
  const paths: string[] = [];
  if (query !== undefined) paths.push(`${path}?${query}`);
  paths.push(path);
  let end = 0;
  for (let n = 0; n < MAX_PATH_PREFIXES && end >= 0; n++) {
    const prefix = path.slice(0, end + 1);
    if (!paths.includes(prefix)) paths.push(prefix);
    end = path.indexOf('/', end + 1);
  }
  return paths;
}

/** Every host/path combination of a canonical URL, hosts outermost, in the order of SB-6's examples. */
export function expressionsOf(url: CanonicalUrl): string[] {
  const paths = pathVariants(url.path, url.query);
  const expressions: string[] = [];
  for (const host of hostVariants(url.host)) {
    for (const path of paths) expressions.push(host + path);
  }
  return expressions;
}

/** SB-6: the host-suffix/path-prefix expressions of a URL, at most 30, no duplicates. */
export function urlExpressions(url: string | Uint8Array): string[] {
  return expressionsOf(parseCanonicalUrl(url));
}
