import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { embeddedIPv4, formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../../src/url/ip.ts';

/** Writes a 32-bit address in n components, each in a chosen radix, as inet_aton accepts. */
function encodeIPv4(value: number, parts: number, radixes: number[]): string {
  const bytes = [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
  const head = bytes.slice(0, parts - 1);
  const last = bytes.slice(parts - 1).reduce((acc, b) => acc * 256 + b, 0);
  return [...head, last]
    .map((n, i) => {
      const radix = radixes[i] ?? 10;
      if (radix === 16) return `0x${n.toString(16)}`;
      if (radix === 8) return `0${n.toString(8)}`;
      return n.toString(10);
    })
    .join('.');
}

describe('parseIPv4', () => {
  it('reads every legal encoding of every address', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom(8, 10, 16), { minLength: 4, maxLength: 4 }),
        (value, parts, radixes) => {
          assert.equal(parseIPv4(encodeIPv4(value, parts, radixes)), value);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('treats names and out-of-range numbers as names', () => {
    for (const host of ['example.com', '1.2.3.4.5', '256.1.1.1', '1.2.3.256', '1.16777216', '4294967296', '08', '0xg', '', '1.2.3.a']) {
      assert.equal(parseIPv4(host), undefined, host);
    }
  });

  it('formats dotted quads', () => {
    assert.equal(formatIPv4(3279880203), '195.127.0.11');
  });
});

describe('parseIPv6 and formatIPv6', () => {
  it('agree with the WHATWG serializer of Node for every address that is not IPv4 in disguise', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const groups = parseIPv6(ip);
        assert.ok(groups !== undefined, ip);
        if (embeddedIPv4(groups) !== undefined) return;
        assert.equal(`[${formatIPv6(groups)}]`, new URL(`http://[${ip}]/`).hostname);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips groups', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (groups) => {
        assert.deepEqual(parseIPv6(formatIPv6(groups)), groups);
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects malformed addresses', () => {
    for (const text of ['', '1:2:3', '1::2::3', '12345::', 'g::', '1:2:3:4:5:6:7:8:9', '::1.2.3', '::1.2.3.04', '::256.1.1.1', ':1::']) {
      assert.equal(parseIPv6(text), undefined, text);
    }
  });

  it('finds IPv4-mapped and NAT64 addresses only', () => {
    assert.equal(embeddedIPv4(parseIPv6('::ffff:1.2.3.4')!), 0x01020304);
    assert.equal(embeddedIPv4(parseIPv6('64:ff9b::102:304')!), 0x01020304);
    assert.equal(embeddedIPv4(parseIPv6('::1.2.3.4')!), undefined);
    assert.equal(embeddedIPv4(parseIPv6('64:ff9b:1::1.2.3.4')!), undefined);
  });
});
