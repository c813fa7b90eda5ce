// Whose request it is (docs/architecture.md, reliability rules): the address of the peer, or, behind proxies the
// operator trusts, the rightmost address in X-Forwarded-For that is not one of them. A header from
// anyone else is ignored: clients could write anything there. IPv6 clients are grouped by /64, the
// block one subscriber gets, so that a client cannot multiply its quota over its own addresses.

import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { formatIPv4, parseIPv6 } from '../../url/ip.ts';
import { ConfigError } from '../config/config-error.ts';

/** Trusted proxies as addresses and CIDR blocks, e.g. `10.0.0.0/8`, `127.0.0.1`, `fd00::/8`. */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  /** Throws ConfigError naming an entry that is neither an address nor a CIDR block; `what` names the entries. */
  constructor(entries: readonly string[], what = 'trusted proxy') {
    this.empty = entries.length === 0;
    for (const entry of entries) {
      const [address = '', bits] = entry.split('/');
      const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
      const prefix = bits === undefined ? undefined : Number(bits);
      const maxBits = family === 'ipv4' ? 32 : 128;
      if (
        family === undefined ||
        (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxBits && /^\d+$/.test(bits!)))
      ) {
        // No field: the callers know where the entries came from, and say it.
        throw new ConfigError('', `${what} "${entry}" is neither an IP address nor a CIDR block such as 10.0.0.0/8`);
      }
      if (prefix === undefined) this.list.addAddress(address, family);
      else this.list.addSubnet(address, prefix, family);
    }
  }

  has(address: string): boolean {
    if (this.empty) return false;
    const plain = unmapped(address);
    if (isIPv4(plain)) return this.list.check(plain, 'ipv4');
    return isIPv6(plain) && this.list.check(plain, 'ipv6');
  }
}

/**
 * The client's address: the peer's, or, when the peer is a trusted proxy, the rightmost hop of
 * X-Forwarded-For that is not trusted (the leftmost when all are).
 */
export function clientAddress(peer: string, forwardedFor: string | readonly string[] | undefined, trusted: TrustedProxies): string {
  if (!trusted.has(peer) || forwardedFor === undefined) return unmapped(peer);
  const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(','))
    .split(',')
    .map((hop) => withoutPort(hop.trim()))
    .filter((hop) => hop !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = unmapped(hops[i]!);
    if (!isIPv4(hop) && !isIPv6(hop)) return `invalid:${hop.slice(0, 64)}`;
    if (!trusted.has(hop) || i === 0) return hop;
  }
  return unmapped(peer);
}

/** A socket's peer address as load control names clients: an IPv4 client on a dual-stack socket as IPv4. */
export function peerAddress(peer: string): string {
  return unmapped(peer);
}

/** Some proxies write a hop with its port: `192.0.2.1:5678`, `[2001:db8::1]:443`. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed !== null) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4 !== null ? v4[1]! : hop;
}

/** The part of an address that identifies a client: the whole IPv4 address, the /64 of an IPv6 one. */
export function addressKey(address: string): string {
  const groups = ipv6Groups(address);
  return groups === undefined ? address : ipv6Block(groups, 64);
}

/**
 * The neighbourhood an address belongs to, the second tier of shares: an IPv6 client's /56, what ISPs
 * commonly delegate to one subscriber (RFC 6177 leaves /48 or /56 to them), so that the 256 /64s one
 * subscriber can use count once; an IPv4 address is its own neighbourhood (scarce enough that one costs
 * an attacker).
 */
export function neighbourhoodKey(address: string): string {
  const groups = ipv6Groups(address);
  return groups === undefined ? address : ipv6Block(groups, 56);
}

/** The block of `bits` (64 or 56) that the address of these groups is in, written `2001:db8:1:200::/56`. */
function ipv6Block(groups: readonly number[], bits: 64 | 56): string {
  const fourth = bits === 64 ? groups[3]! : groups[3]! & 0xff00;
  return `${[...groups.slice(0, 3), fourth].map((g) => g.toString(16)).join(':')}::/${bits}`;
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, `::ffff:c000:201`, …), an IPv4 client on a dual-stack socket, as IPv4. */
function unmapped(address: string): string {
  const groups = ipv6Groups(address);
  if (groups === undefined || !groups.slice(0, 5).every((g) => g === 0) || groups[5] !== 0xffff) return address;
  return formatIPv4(groups[6]! * 0x10000 + groups[7]!);
}

/** The eight groups of an IPv6 address (its zone, as in `fe80::1%eth0`, left out); undefined for anything else. */
function ipv6Groups(address: string): number[] | undefined {
  if (!address.includes(':') || !isIPv6(address)) return undefined;
  return parseIPv6(address.split('%')[0]!);
}
