import { isIP } from 'node:net';
import { quotedExcerpt } from '../formats/excerpt.ts';
import { BadEntryError } from '../feed-error.ts';

/**
 * A label of a host name: letters, digits, hyphens and underscores. Canonical hosts are lowercase and
 * IDNs Punycode (SB-5), so `xn--…` labels pass. Underscores, and hyphens at either end of a label, are
 * not DNS's LDH rule, but browsers visit such hosts and wildcard DNS gives them to anyone for free
 * (`evil-.blogspot.com`): refusing them would let listed hosts out of every list built from feeds.
 */
const LABEL = /^[a-z0-9_-]+$/;
/** RFC 1035 limits: 63 bytes a label, 253 characters a name written without its final dot. */
const MAX_LABEL_LENGTH = 63;
const MAX_NAME_LENGTH = 253;
const ALL_DIGITS = /^[0-9]+$/;

/** Canonical IP literals: a dotted quad, or an IPv6 address in brackets (SB-5). `999.1.1.1` is neither. */
function isIpAddress(host: string): boolean {
  return host.startsWith('[') && host.endsWith(']') ? isIP(host.slice(1, -1)) === 6 : isIP(host) === 4;
}

/** A feed's text as a report quotes it (excerpt.ts). */
const shown = (text: string): string => quotedExcerpt(text);

/**
 * The canonical host (SB-5) of a feed entry when it is one a browser could visit: an IP literal, or a
 * name of at least two labels. Anything else — the text of an HTML error page, `*.wildcard`, adblock
 * syntax, a single word — throws BadEntryError saying what is wrong, so that it is a bad line, not an
 * entry no URL will ever match.
 */
export function realHost(canonicalHost: string): string {
  if (isIpAddress(canonicalHost)) return canonicalHost;
  if (canonicalHost.length > MAX_NAME_LENGTH)
    throw new BadEntryError(`the host name ${shown(canonicalHost)} is longer than ${MAX_NAME_LENGTH} characters`);
  const labels = canonicalHost.split('.');
  if (labels.length < 2)
    throw new BadEntryError(`${shown(canonicalHost)} is no host name: a name has a dot (bad.example), or is an IP address`);
  for (const label of labels) {
    if (label.length > MAX_LABEL_LENGTH)
      throw new BadEntryError(`the host name ${shown(canonicalHost)} has a label longer than ${MAX_LABEL_LENGTH} characters`);
    if (!LABEL.test(label)) {
      throw new BadEntryError(
        `${shown(canonicalHost)} is no host name: its labels are letters, digits, hyphens and underscores (IDNs in Punycode)`,
      );
    }
  }
  // WHATWG URL: a host ending in a number is an IPv4 address or invalid; no top-level domain is numeric.
  if (ALL_DIGITS.test(labels.at(-1)!)) throw new BadEntryError(`${shown(canonicalHost)} ends in a number but is no IPv4 address`);
  return canonicalHost;
}
