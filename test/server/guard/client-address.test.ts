import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { addressKey, clientAddress, neighbourhoodKey, TrustedProxies } from '../../../src/server/guard/client-address.ts';

const ipv6Groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
const written = (groups: number[]) => groups.map((g) => g.toString(16)).join(':');

describe('addressKey', () => {
  it('keeps an IPv4 address whole', () => {
    assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
  });

  it('gives every address of one IPv6 /64 the same key, written in any form, and other /64s other keys', () => {
    fc.assert(
      fc.property(ipv6Groups, ipv6Groups, (a, b) => {
        const sameNet = [...a.slice(0, 4), ...b.slice(4)];
        assert.equal(addressKey(written(a)), addressKey(written(sameNet)));
        const differs = a.slice(0, 4).some((g, i) => g !== b[i]);
        assert.equal(addressKey(written(a)) === addressKey(written(b)), !differs);
      }),
      { numRuns: 1000 },
    );
    assert.equal(addressKey('2001:db8::1'), addressKey('2001:0db8:0000:0000:ffff:0:0:1'));
    assert.equal(addressKey('2001:db8:0:0:1::1.2.3.4'), addressKey('2001:db8::'));
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });
});

describe('neighbourhoodKey', () => {
  it('keeps an IPv4 address whole', () => {
    assert.equal(neighbourhoodKey('192.0.2.7'), '192.0.2.7');
  });

  it('gives every address of one IPv6 /56 the same key, and other /56s other keys', () => {
    fc.assert(
      fc.property(ipv6Groups, ipv6Groups, (a, b) => {
        const sameNet = [...a.slice(0, 3), (a[3]! & 0xff00) | (b[3]! & 0xff), ...b.slice(4)];
        assert.equal(neighbourhoodKey(written(a)), neighbourhoodKey(written(sameNet)));
        const differs = a.slice(0, 3).some((g, i) => g !== b[i]) || (a[3]! & 0xff00) !== (b[3]! & 0xff00);
        assert.equal(neighbourhoodKey(written(a)) === neighbourhoodKey(written(b)), !differs);
      }),
      { numRuns: 1000 },
    );
    assert.equal(neighbourhoodKey('2001:db8:1:2ff::1'), '2001:db8:1:200::/56');
    assert.equal(neighbourhoodKey('2001:db8:1:2ff::1'), neighbourhoodKey('2001:db8:1:200:ffff::'));
  });
});

describe('clientAddress', () => {
  const trusted = new TrustedProxies(['10.0.0.0/8', '2001:db8:ffff::/48']);

  it('is the peer unless the peer is a trusted proxy', () => {
    assert.equal(clientAddress('192.0.2.1', '198.51.100.1', trusted), '192.0.2.1');
    assert.equal(clientAddress('::ffff:192.0.2.1', undefined, trusted), '192.0.2.1');
    assert.equal(clientAddress('10.1.2.3', undefined, trusted), '10.1.2.3');
  });

  it('behind trusted proxies, is the rightmost hop that is not one of them', () => {
    assert.equal(clientAddress('10.1.2.3', '198.51.100.1, 203.0.113.5, 10.9.9.9', trusted), '203.0.113.5');
    assert.equal(clientAddress('2001:db8:ffff::1', ['198.51.100.1', '2001:db8:ffff::2'], trusted), '198.51.100.1');
    assert.equal(clientAddress('10.1.2.3', '10.0.0.1, 10.0.0.2', trusted), '10.0.0.1', 'all trusted: the leftmost');
    assert.match(clientAddress('10.1.2.3', 'unknown, <script>', trusted), /^invalid:<script>$/);
    assert.equal(clientAddress('10.1.2.3', '198.51.100.1:5678', trusted), '198.51.100.1', 'a hop with its port');
    assert.equal(clientAddress('10.1.2.3', '[2001:db8::7]:443', trusted), '2001:db8::7');
  });

  it('sees an IPv4 client behind any IPv4-mapped IPv6 form', () => {
    for (const mapped of ['::ffff:192.0.2.1', '::ffff:c000:201', '0:0:0:0:0:ffff:192.0.2.1', '::FFFF:C000:0201']) {
      assert.equal(clientAddress(mapped, undefined, trusted), '192.0.2.1', mapped);
    }
    assert.equal(clientAddress('::ffff:10.1.2.3', '198.51.100.9', trusted), '198.51.100.9', 'a mapped proxy is still trusted');
  });

  it('refuses trusted proxies that are not addresses or blocks', () => {
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/', '::1/129', '10.0.0.0/8x'])
      assert.throws(() => new TrustedProxies([bad]), { name: 'ConfigError', field: '', code: 'SBKIT_CONFIG' }, bad);
  });
});
