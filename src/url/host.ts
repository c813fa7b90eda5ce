import { InvalidUrlError } from './invalid-url.ts';
import { embeddedIPv4, formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from './ip.ts';
import { bytesOfLatin1 } from './byte-string.ts';

/** UTF-8 text of a byte string, or undefined when the bytes are not valid UTF-8. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: string): string | undefined {
  try {
    return strictUtf8.decode(bytesOfLatin1(bytes));
  } catch {
    return undefined;
  }
}

/**
 * Characters that end or break a host in a URL. The WHATWG URL parser reads its input as a URL host, so
 * `255#ü` would come back as `0.0.0.255`: text holding any of these is no IDN and is left as it is.
 */
// eslint-disable-next-line no-control-regex -- control characters are among what ends a host
const NOT_IN_A_DOMAIN = /[\x00-\x20#%/:<>?@[\\\]^|\x7f]/;

/** SB-5 "IDN hosts are converted to ASCII Punycode"; bytes that are not a valid IDN stay as they are. */
function toAsciiHost(host: string): string {
  const text = decodeUtf8(host);
  if (text === undefined || NOT_IN_A_DOMAIN.test(text)) return host;
  // UTS #46 as every runtime's URL parser applies it (Node's domainToASCII is the same parser).
  let ascii: string;
  try {
    ascii = new URL(`http://${text}/`).hostname;
  } catch {
    return host;
  }
  return ascii === '' ? host : ascii;
}

const NON_ASCII = /[\x80-\xff]/;
const UPPERCASE = /[A-Z]/;
const DOTS_TO_FIX = /^\.|\.$|\.\./;
/** Fails only for a host already in canonical form: a lowercase ASCII name, no stray dots, no digit first. */
const MAY_NEED_WORK = /[^a-z0-9.-]|^[.0-9]|\.$|\.\.|^$/;

function collapseDots(host: string): string {
  return DOTS_TO_FIX.test(host) ? host.replace(/^\.+|\.+$/g, '').replace(/\.{2,}/g, '.') : host;
}

/** Lowercases A–Z only: other bytes of a byte string are not letters of any alphabet here. */
function lowercaseAscii(text: string): string {
  return UPPERCASE.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text;
}

/**
 * SB-5 hostname rules on an unescaped host (a byte string): IDN to Punycode, leading and trailing dots
 * removed, runs of dots collapsed, IPv4 in any legal encoding to a dotted quad, bracketed IPv6 to its
 * RFC 5952 form (IPv4-mapped and NAT64 to IPv4), then lowercase. The result is not yet escaped.
 */
export function canonicalizeHost(rawHost: string, input: string): string {
  if (!MAY_NEED_WORK.test(rawHost)) return rawHost;
  // Dots first, so that the IPv6 and IDN steps see the same text whether or not the host had stray
  // dots; and after IDN again, as IDNA maps full stops such as U+3002 to dots.
  let host = collapseDots(rawHost);
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = parseIPv6(host.slice(1, -1));
    if (groups === undefined) throw new InvalidUrlError('invalid-ipv6', input);
    const v4 = embeddedIPv4(groups);
    return v4 === undefined ? `[${formatIPv6(groups)}]` : formatIPv4(v4);
  }
  // Brackets mean an IPv6 literal to every URL parser; in a name they would move the host on re-parsing.
  if (host.includes('[') || host.includes(']')) throw new InvalidUrlError('invalid-host', input);
  if (NON_ASCII.test(host)) host = collapseDots(toAsciiHost(host));
  // Every IPv4 encoding starts with a decimal digit (`0x…` and octal included); names rarely do.
  const first = host.charCodeAt(0);
  const v4 = first >= 0x30 && first <= 0x39 ? parseIPv4(host) : undefined;
  return v4 === undefined ? lowercaseAscii(host) : formatIPv4(v4);
}

/** True for a canonical host that is an IP literal, which gets no host-suffix expressions (SB-6). */
export function isIpLiteral(canonicalHost: string): boolean {
  return canonicalHost.startsWith('[') || /^\d+\.\d+\.\d+\.\d+$/.test(canonicalHost);
}
