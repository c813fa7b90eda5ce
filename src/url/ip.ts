// IP address literals in host names (SB-5 hostname steps 3 and 4).

/**
 * SB-5: a host that parses as IPv4 "in any legal encoding: octal, hex, and fewer than four components",
 * as inet_aton reads it: each component decimal, octal (leading 0) or hex (0x); every component but the
 * last is one byte, the last fills the remaining bytes. Returns the address as an unsigned 32-bit number,
 * or undefined when the host is a name. One pass over the characters: this runs for every checked URL.
 */
export function parseIPv4(host: string): number | undefined {
  const parts: number[] = [];
  let i = 0;
  while (i <= host.length) {
    if (parts.length === 4) return undefined;
    let radix = 10;
    let start = i;
    if (host.charCodeAt(i) === 0x30) {
      const next = host.charCodeAt(i + 1) | 0x20;
      if (next === 0x78) {
        radix = 16;
        start = i += 2;
      } else {
        radix = 8;
      }
    }
    let value = 0;
    for (; i < host.length && host.charCodeAt(i) !== 0x2e; i++) {
      const digit = digitValue(host.charCodeAt(i));
      if (digit >= radix) return undefined;
      // Past 2^32 no component can be valid; stopping the sum there keeps it exact.
      value = Math.min(value * radix + digit, 2 ** 32);
    }
    if (i === start && radix !== 16) return undefined;
    parts.push(value);
    i++;
  }
  let address = 0;
  for (let p = 0; p < parts.length - 1; p++) {
    if (parts[p]! > 0xff) return undefined;
    address = address * 256 + parts[p]!;
  }
  const lastBytes = 5 - parts.length;
  const last = parts[parts.length - 1]!;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  return address * 2 ** (8 * lastBytes) + last;
}

function digitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return 99;
}

export function formatIPv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 0xff}.${(value >>> 8) & 0xff}.${value & 0xff}`;
}

/** A strict dotted quad, as it may end an IPv6 address: four decimal bytes without leading zeros. */
function parseDottedQuad(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

/** Parses the text between the brackets of an IPv6 host into its eight 16-bit groups. */
export function parseIPv6(text: string): number[] | undefined {
  const doubleColon = text.indexOf('::');
  if (doubleColon >= 0 && text.indexOf('::', doubleColon + 1) >= 0) return undefined;
  const head = doubleColon >= 0 ? text.slice(0, doubleColon) : text;
  const tail = doubleColon >= 0 ? text.slice(doubleColon + 2) : '';
  const headGroups = parseGroups(head, doubleColon < 0);
  const tailGroups = doubleColon >= 0 ? parseGroups(tail, true) : [];
  if (headGroups === undefined || tailGroups === undefined) return undefined;
  const present = headGroups.length + tailGroups.length;
  if (doubleColon >= 0 ? present > 7 : present !== 8) return undefined;
  return [...headGroups, ...new Array<number>(8 - present).fill(0), ...tailGroups];
}

function parseGroups(text: string, mayEndInIPv4: boolean): number[] | undefined {
  if (text === '') return [];
  const fields = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (mayEndInIPv4 && i === fields.length - 1 && field.includes('.')) {
      const v4 = parseDottedQuad(field);
      if (v4 === undefined) return undefined;
      groups.push(v4 >>> 16, v4 & 0xffff);
    } else if (/^[0-9a-f]{1,4}$/i.test(field)) {
      groups.push(parseInt(field, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

/**
 * SB-5: IPv4-mapped (::ffff:0:0/96) and NAT64 well-known-prefix (64:ff9b::/96) addresses stand for the
 * IPv4 address in their last 32 bits.
 */
export function embeddedIPv4(groups: readonly number[]): number | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  return mapped || nat64 ? g6 * 0x10000 + g7 : undefined;
}

/** RFC 5952 text: no leading zeros, lowercase, the longest run of two or more zero groups as `::`. */
export function formatIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number) =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}
