import { latin1OfBytes } from './byte-string.ts';
import type { CanonicalUrl } from './canonical-url.ts';
import { parseAlreadyCanonical } from './fast-path.ts';
import { canonicalizeHost } from './host.ts';
import { InvalidUrlError } from './invalid-url.ts';
import { canonicalizePath } from './path.ts';
import { escapeBytes, toByteString, unescapeFully } from './percent.ts';

export type { CanonicalUrl } from './canonical-url.ts';

/** Browsers refuse longer URLs (Chromium's limit is 2 MiB); refusing them bounds our work too. */
export const MAX_URL_LENGTH = 2 * 1024 * 1024;

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
/** `host:port` without a scheme (`www.example.com:8080/x`) looks like a scheme at first sight. */
const PORT_THEN_PATH = /^[0-9]+(?:$|[/\\?])/;
/** Schemes that are never a host name, even when digits follow the colon (`about:1/x`). */
const NOT_WEB_SCHEMES = new Set([
  'about',
  'blob',
  'chrome',
  'data',
  'file',
  'ftp',
  'javascript',
  'mailto',
  'sms',
  'tel',
  'view-source',
  'ws',
  'wss',
]);

function splitScheme(text: string, input: string): { scheme: 'http' | 'https'; rest: string } {
  if (text.startsWith('http://')) return { scheme: 'http', rest: text.slice(7) };
  if (text.startsWith('https://')) return { scheme: 'https', rest: text.slice(8) };
  const match = SCHEME.exec(text);
  if (match !== null) {
    const scheme = match[1]!.toLowerCase();
    const rest = text.slice(match[0].length);
    if (scheme === 'http' || scheme === 'https') return { scheme, rest };
    if (NOT_WEB_SCHEMES.has(scheme) || !PORT_THEN_PATH.test(rest)) {
      throw new InvalidUrlError('unsupported-scheme', input, `the scheme "${scheme}" is not http or https`);
    }
  }
  // SB-5 examples: a missing scheme means http (`www.google.com/` → `http://www.google.com/`).
  return { scheme: 'http', rest: text };
}

/**
 * Splits `userinfo@host:port/rest` into the host and everything from the path on, dropping user,
 * password and port (SB-5). As in browsers, `\` ends the host like `/` does, so `http://evil.example\@good.example/`
 * is checked as evil.example, the host a browser would visit.
 */
function splitAuthority(text: string): { host: string; tail: string } {
  const end = endOfAuthority(text);
  const hostPort = text.slice(text.lastIndexOf('@', end - 1) + 1, end);
  let host: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    host = close < 0 ? hostPort : hostPort.slice(0, close + 1);
  } else {
    const colon = hostPort.indexOf(':');
    host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  }
  return { host, tail: text.slice(end) };
}

/**
 * SB-5 canonicalization, taken apart. The raw URL is split first, the way a browser sees it, so that an
 * escaped `/` or `@` cannot move the host; then host and the rest are unescaped together and split once
 * more, as Chromium re-parses the unescaped URL, so that the result is a fixed point of the procedure.
 *
 * A string is taken as Unicode text (sent as UTF-8); a byte array as the bytes of a URL as it was seen.
 *
 * @throws {@link InvalidUrlError} for input that names no http(s) page: empty, longer than 2 MiB,
 *   another scheme, no host, or a malformed bracketed host.
 */
export function parseCanonicalUrl(url: string | Uint8Array): CanonicalUrl {
  // Most URLs are canonical already (but for a fragment): one pass over them proves it (fast-path.ts).
  const canonical = typeof url === 'string' && url.length <= MAX_URL_LENGTH ? parseAlreadyCanonical(url) : undefined;
  return canonical ?? parseCanonicalUrlInFull(url);
}

/**
 * The whole SB-5 procedure, step by step, for any input; {@link parseCanonicalUrl} calls it when the
 * fast path declines. Exported for the test that the two agree.
 */
export function parseCanonicalUrlInFull(url: string | Uint8Array): CanonicalUrl {
  const input = typeof url === 'string' ? url : latin1OfBytes(url);
  if (input.length > MAX_URL_LENGTH) throw new InvalidUrlError('too-long', input);
  // Strings are Unicode text and become UTF-8 bytes; byte arrays are taken as the bytes they are.
  let text = typeof url === 'string' ? toByteString(url) : input;
  text = withoutTabsNewlinesOrFragment(trimControlsAndSpaces(text));
  if (text === '') throw new InvalidUrlError('empty', input);

  const { scheme, rest } = splitScheme(text, input);
  const raw = splitAuthority(stripLeadingSlashes(rest));
  const unescaped = unescapeAuthorityAndTail(raw);

  const host = canonicalizeHost(unescaped.host, input);
  if (host === '') throw new InvalidUrlError('no-host', input);

  const { tail } = unescaped;
  const questionMark = tail.indexOf('?');
  let rawPath = questionMark < 0 ? tail : tail.slice(0, questionMark);
  if (rawPath.indexOf('\\') >= 0) rawPath = rawPath.replace(/\\/g, '/');
  const path = canonicalizePath(rawPath.startsWith('/') ? rawPath : `/${rawPath}`);
  const query = questionMark < 0 ? undefined : tail.slice(questionMark + 1);

  return {
    scheme,
    host: escapeBytes(host),
    path: escapeBytes(path),
    query: query === undefined ? undefined : escapeBytes(query),
  };
}

/**
 * SB-5 whole URL, step 3, on a URL split once: host and the rest are unescaped together and split again,
 * as Chromium re-parses the unescaped URL. When the host holds no escape, nothing decoded in the rest can
 * move the split (it starts at the `/`, `\\` or `?` that ended the host, and `@` and `:` count only before
 * it), so the rest alone is unescaped.
 */
function unescapeAuthorityAndTail(raw: { host: string; tail: string }): { host: string; tail: string } {
  if (raw.host.indexOf('%') >= 0) return splitAuthority(unescapeFully(raw.host + raw.tail));
  const tail = unescapeFully(raw.tail);
  return tail === raw.tail ? raw : { host: raw.host, tail };
}

const END_OF_AUTHORITY = /[/\\?]/;

/** Where the authority ends: at the first `/`, `\\` or `?`, or at the end. */
function endOfAuthority(text: string): number {
  const end = text.search(END_OF_AUTHORITY);
  return end < 0 ? text.length : end;
}

const TAB_CR_OR_LF = /[\t\r\n]/;
const TABS_CRS_AND_LFS = /[\t\r\n]/g;

/**
 * SB-5 whole URL, steps 1 and 2: every tab, CR and LF deleted, and the fragment cut off at the first `#`
 * (cut first: deleting those characters does not move it). `indexOf` and a regular expression test look
 * for them in native code, twice as fast as a loop over the characters, and most URLs hold none.
 */
function withoutTabsNewlinesOrFragment(text: string): string {
  const hash = text.indexOf('#');
  const kept = hash < 0 ? text : text.slice(0, hash);
  return TAB_CR_OR_LF.test(kept) ? kept.replace(TABS_CRS_AND_LFS, '') : kept;
}

/** WHATWG-style trimming of leading and trailing C0 controls and spaces (bytes 0x00–0x20). */
function trimControlsAndSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** For http(s), browsers ignore any number of slashes and backslashes after the scheme. */
function stripLeadingSlashes(text: string): string {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 0x2f || text.charCodeAt(i) === 0x5c)) i++;
  return i === 0 ? text : text.slice(i);
}

/** The canonical URL of its parts, as {@link canonicalizeUrl} gives it: `scheme://host/path?query`. */
export function formatCanonicalUrl(url: CanonicalUrl): string {
  const base = `${url.scheme}://${url.host}${url.path}`;
  return url.query === undefined ? base : `${base}?${url.query}`;
}

/**
 * SB-5: the canonical form of a URL — fragment, user, password and port gone, escapes resolved and
 * re-applied, host and path normalised, e.g. `HTTP://www.GOOgle.com:80/a/../b#top` →
 * `http://www.google.com/b`.
 *
 * @throws {@link InvalidUrlError} for input that names no http(s) page.
 */
export function canonicalizeUrl(url: string | Uint8Array): string {
  return formatCanonicalUrl(parseCanonicalUrl(url));
}
