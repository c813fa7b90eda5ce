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
 * has one slot, and a newcomer simply replaces whoever held it, where an ordered map's evictions cost
 * more than the look-ups they save whenever hosts do not repeat (a crawler's, a mail scanner's). A slot
 * keeps a copy of its host's characters, never the host string: a host is often a slice of the URL it
 * came from, which the string would keep alive (up to MAX_URL_LENGTH per slot). So the table is a fixed
 * megabyte whatever comes; hosts longer than a slot (255 characters, where a DNS name has at most 253)
 * are not kept.
 */
const REMEMBERED_SLOTS = 4096;
const SLOT_BYTES = 256;
const rememberedLengths = new Uint16Array(REMEMBERED_SLOTS);
const rememberedChars = new Uint8Array(REMEMBERED_SLOTS * SLOT_BYTES);
const rememberedStarts = new Array<readonly number[] | undefined>(REMEMBERED_SLOTS).fill(undefined);

/**
 * A slot from the host's length and five of its characters: constant time whatever the host, and hosts of
 * one site (`a1.example.com`, `b7.example.com`) mostly differ in their first characters or their length.
 * Hosts that share a slot only take turns; the answer is always checked against the host itself.
 */
function slotOf(host: string): number {
  const n = host.length;
  const mix =
    Math.imul(n, 0x9e3779b1) ^
    Math.imul(host.charCodeAt(0), 0x85ebca6b) ^
    Math.imul(host.charCodeAt(1) | 0, 0xc2b2ae35) ^
    Math.imul(host.charCodeAt(2) | 0, 0x27d4eb2f) ^
    Math.imul(host.charCodeAt(3) | 0, 0x165667b1) ^
    Math.imul(host.charCodeAt(n >>> 1), 0xd3a2646c);
  return (mix ^ (mix >>> 13) ^ (mix >>> 22)) & (REMEMBERED_SLOTS - 1);
}

function slotHolds(slot: number, host: string): boolean {
  if (rememberedLengths[slot] !== host.length) return false;
  const base = slot * SLOT_BYTES;
  for (let i = 0; i < host.length; i++) if (rememberedChars[base + i] !== host.charCodeAt(i)) return false;
  return true;
}

/** Keeps `host` in its slot, when every character fits a byte (canonical hosts are ASCII). */
function remember(slot: number, host: string, starts: readonly number[]): void {
  const base = slot * SLOT_BYTES;
  for (let i = 0; i < host.length; i++) {
    const code = host.charCodeAt(i);
    if (code > 0xff) {
      rememberedLengths[slot] = 0;
      return;
    }
    rememberedChars[base + i] = code;
  }
  rememberedLengths[slot] = host.length;
  rememberedStarts[slot] = starts;
}

/**
 * SB-6 hosts, as offsets into the canonical host: 0 for the exact host, then the starts of host suffixes
 * from the longest down to the eTLD+1 — at most four of them, built from the eTLD+1 (Public Suffix List)
 * by adding leading components — and none for IP literals or a host that is itself a public suffix.
 */
export function hostSuffixStarts(host: string): readonly number[] {
  if (host.length === 0 || host.length >= SLOT_BYTES) return suffixStartsOf(host);
  const slot = slotOf(host);
  if (slotHolds(slot, host)) return rememberedStarts[slot]!;
  const starts = suffixStartsOf(host);
  remember(slot, host, starts);
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
