import { isIP } from 'node:net';
import { quotedExcerpt } from './excerpt.ts';
import { BadEntryError } from '../feed-error.ts';

// Hosts files (hosts(5); StevenBlack-style blocklists, URLhaus's hostfile; docs/api.md §4): an address, then
// one or more host names, separated by blanks; `#` starts a comment anywhere on a line.

/**
 * Names every hosts file maps to the machine itself or to the local network, which blocklists copy from
 * the system's file (StevenBlack's header has all of them). They are never threats, and listing them
 * would flag every local service, so they are skipped, not reported.
 */
const LOCAL_NAMES: ReadonlySet<string> = new Set([
  'localhost',
  'localhost.localdomain',
  'local',
  'broadcasthost',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-mcastprefix',
  'ip6-allnodes',
  'ip6-allrouters',
  'ip6-allhosts',
  '0.0.0.0',
]);

/** True for a canonical host name that a hosts file lists for the machine itself, not as a threat. */
export function isLocalName(canonicalHost: string): boolean {
  return LOCAL_NAMES.has(canonicalHost);
}

/**
 * The host names of one hosts-file line, without its comment. A line of a single name is taken as a
 * host name too, the form of domain-only blocklists; a longer line must start with an IPv4 or IPv6
 * address. A line that is only a comment yields no names.
 */
export function hostsLineNames(line: string): string[] {
  const hash = line.indexOf('#');
  const content = hash < 0 ? line : line.slice(0, hash);
  const tokens = content.split(/\s+/).filter((token) => token !== '');
  if (tokens.length <= 1) return tokens;
  const [address, ...names] = tokens;
  if (isIP(address!) === 0) {
    throw new BadEntryError(`a hosts-file line starts with an IP address such as 0.0.0.0, not ${quotedExcerpt(address!)}`);
  }
  return names;
}
