// Addresses a feed download may not reach unless the operator allows it: a feed's server (or whoever
// controls its DNS) must not be able to turn the feed reader into a client of the machine's own services
// or of the private network behind it (server-side request forgery).

import { lookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { embeddedIPv4, parseIPv4, parseIPv6 } from '../../../url/ip.ts';

/** What kind of address that is not on the public Internet. */
export type NonPublicKind = 'unspecified' | 'loopback' | 'private' | 'link-local' | 'unique-local' | 'shared' | 'multicast' | 'reserved';

/** IPv4 blocks (RFC 6890 and its updates) that are not public unicast, with their kind. */
const IPV4_BLOCKS: readonly (readonly [string, number, NonPublicKind])[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function ipv4Kind(value: number): NonPublicKind | undefined {
  for (const [base, bits, kind] of IPV4_BLOCKS) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((value & mask) >>> 0 === parseIPv4(base)) return kind;
  }
  return undefined;
}

function ipv6Kind(groups: readonly number[]): NonPublicKind | undefined {
  // IPv4-mapped and NAT64 addresses reach the IPv4 address they carry; 6to4 (2002::/16) the one in groups 1-2.
  const carried = embeddedIPv4(groups) ?? (groups[0] === 0x2002 ? groups[1]! * 0x10000 + groups[2]! : undefined);
  if (carried !== undefined) return ipv4Kind(carried);
  const [first = 0] = groups;
  if (groups.every((group) => group === 0)) return 'unspecified';
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) return 'loopback';
  // ::/96, IPv4-compatible addresses: deprecated, never to be reached.
  if (groups.slice(0, 6).every((group) => group === 0)) return 'reserved';
  if ((first & 0xfe00) === 0xfc00) return 'unique-local';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  // fec0::/10, site-local: deprecated, but still routed inside some networks.
  if ((first & 0xffc0) === 0xfec0) return 'private';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  // Teredo (2001::/32) tunnels to an IPv4 address hidden in the address; a translator could reach it.
  if (first === 0x2001 && groups[1] === 0) return 'reserved';
  // Only global unicast (2000::/3) is public: the rest (IPv4-translated ::ffff:0:0/96, local-use NAT64
  // 64:ff9b:1::/48, the discard prefix 100::/64) is special or unassigned.
  if ((first & 0xe000) !== 0x2000) return 'reserved';
  return undefined;
}

/**
 * The kind of a non-public IP address (loopback, private, link-local, unique-local, unspecified, …), or
 * undefined for a public one. `address` is an IP literal as Node's resolver gives it; anything else is
 * treated as `reserved`, never as public.
 */
export function nonPublicKind(address: string): NonPublicKind | undefined {
  const plain = address.replace(/^\[(.*)\]$/, '$1').split('%')[0]!;
  if (isIP(plain) === 4) return ipv4Kind(parseIPv4(plain)!);
  const groups = isIP(plain) === 6 ? parseIPv6(plain) : undefined;
  return groups === undefined ? 'reserved' : ipv6Kind(groups);
}

/** A host name resolved to a non-public address; source-reader.ts turns it into a SourceError. */
export class NonPublicAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: NonPublicKind,
  ) {
    super(`${host} resolves to ${address}, a ${kind} address`);
  }
}

/**
 * A resolver for `http.request`'s `lookup` that fails when any address of the name is not public. It runs
 * when the connection is made, so what is checked is what is connected to: a name that resolved to a
 * public address a moment ago and to 127.0.0.1 now (DNS rebinding) is refused.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) {
      callback(error, []);
      return;
    }
    for (const { address } of addresses) {
      const kind = nonPublicKind(address);
      if (kind !== undefined) {
        callback(new NonPublicAddressError(hostname, address, kind), []);
        return;
      }
    }
    if (options.all === true) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
