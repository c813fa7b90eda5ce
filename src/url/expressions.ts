import { getPublicSuffix } from 'tldts-icann/dist/index.esm.min.js';
import { type CanonicalUrl, parseCanonicalUrl } from './canonicalize.ts';
import { isIpLiteral } from './host.ts';

/** SB-6 limits. */
export const MAX_HOSTS = 5;
export const MAX_PATHS = 6;
export const MAX_EXPRESSIONS = MAX_HOSTS * MAX_PATHS;
const MAX_SUFFIX_HOSTS = MAX_HOSTS - 1;
const MAX_PATH_PREFIXES = 4;

const SUFFIX_OPTIONS = {
  // Only the ICANN part of the Public Suffix List counts: for `user.github.io` the suffix `github.io/` is
  // still checked, one more chance to match, as the "last five components" rule of v4 would have done.
  allowPrivateDomains: false,
  detectIp: false,
  extractHostname: false,
  mixedInputs: false,
  validateHostname: false,
} as const;

/**
 * Host-suffix starts of the hosts met lately. The Public Suffix List look-up is the costly part of SB-6
 * and the same hosts come back again and again (a page's resources, a site's pages); the list never
 * changes while the process runs, so a remembered answer is the answer. A direct-mapped table: each host
 * has one slot, chosen by a hash of its characters, and a newcomer simply replaces whoever held it. A
 * miss then costs one hash and two stores, where an ordered map's evictions cost more than the look-up
 * they save whenever hosts do not repeat (a crawler's, a mail scanner's). Bounded in slots, and hosts
 * longer than a DNS name (253 characters) are not kept, so that it holds little memory whatever comes.
 */
const REMEMBERED_SLOTS = 4096;
const MAX_REMEMBERED_HOST_LENGTH = 253;
const rememberedHosts = new Array<string | undefined>(REMEMBERED_SLOTS).fill(undefined);
const rememberedStarts = new Array<readonly number[] | undefined>(REMEMBERED_SLOTS).fill(undefined);

/** FNV-1a over the host's characters, folded to a slot. */
function slotOf(host: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < host.length; i++) hash = Math.imul(hash ^ host.charCodeAt(i), 0x01000193);
  return (hash ^ (hash >>> 15)) & (REMEMBERED_SLOTS - 1);
}

/**
 * SB-6 hosts, as offsets into the canonical host: 0 for the exact host, then the starts of host suffixes
 * from the longest down to the eTLD+1 — at most four of them, built from the eTLD+1 (Public Suffix List)
 * by adding leading components — and none for IP literals or a host that is itself a public suffix.
 */
export function hostSuffixStarts(host: string): readonly number[] {
  if (host.length > MAX_REMEMBERED_HOST_LENGTH) return suffixStartsOf(host);
  const slot = slotOf(host);
  if (rememberedHosts[slot] === host) return rememberedStarts[slot]!;
  const starts = suffixStartsOf(host);
  rememberedHosts[slot] = host;
  rememberedStarts[slot] = starts;
  return starts;
}

function suffixStartsOf(host: string): number[] {
  const starts = [0];
  if (isIpLiteral(host)) return starts;
  const suffix = getPublicSuffix(host, SUFFIX_OPTIONS);
  if (suffix === null || suffix.length >= host.length) return starts;
  const suffixStarts: number[] = [];
  let start = host.lastIndexOf('.', host.length - suffix.length - 2) + 1;
  while (suffixStarts.length < MAX_SUFFIX_HOSTS && start > 0) {
    suffixStarts.push(start);
    start = host.lastIndexOf('.', start - 2) + 1;
  }
  for (let i = suffixStarts.length - 1; i >= 0; i--) starts.push(suffixStarts[i]!);
  return starts;
}

/**
 * SB-6 paths, as lengths of prefixes of the path with its query: the exact path with the query (when
 * it has one), the
 * exact path, then prefixes from the root adding one directory at a time, each with its trailing slash —
 * at most four of those; no length twice.
 */
export function pathPrefixLengths(path: string, query: string | undefined): number[] {
  const lengths: number[] = [];
  // An empty query (`/q?`) has no parameters: like Chromium and the Go client, no `?` expression.
  if (query !== undefined && query !== '') lengths.push(path.length + 1 + query.length);
  lengths.push(path.length);
  let end = 0;
  for (let n = 0; n < MAX_PATH_PREFIXES && end >= 0; n++) {
    if (end + 1 !== path.length) lengths.push(end + 1);
    end = path.indexOf('/', end + 1);
  }
  return lengths;
}

/**
 * Every host/path combination of a canonical URL (from {@link parseCanonicalUrl}), hosts outermost, in
 * the order of SB-6's examples.
 * Each expression is a substring of one string, host + path + query: slices share its memory, where
 * concatenating every expression would make V8 flatten each one again when it is hashed. The array is
 * made at its final size and filled by index, a fifth faster than pushing (bench/url.ts).
 */
export function expressionsOf(url: CanonicalUrl): string[] {
  const { host, path, query } = url;
  const whole = query === undefined ? host + path : `${host}${path}?${query}`;
  const lengths = pathPrefixLengths(path, query);
  const starts = hostSuffixStarts(host);
  const expressions = new Array<string>(starts.length * lengths.length);
  let next = 0;
  for (let h = 0; h < starts.length; h++) {
    for (let p = 0; p < lengths.length; p++) expressions[next++] = whole.slice(starts[h], host.length + lengths[p]!);
  }
  return expressions;
}

/**
 * SB-6: the host-suffix/path-prefix expressions of a URL, at most 30, no duplicates, in the order of
 * the spec's examples: `http://a.b.com/1/2.html?param=1` gives `a.b.com/1/2.html?param=1`,
 * `a.b.com/1/2.html`, `a.b.com/`, `a.b.com/1/`, then the same paths under `b.com`.
 *
 * @throws {@link InvalidUrlError} for input that names no http(s) page.
 */
export function urlExpressions(url: string | Uint8Array): string[] {
  return expressionsOf(parseCanonicalUrl(url));
}
