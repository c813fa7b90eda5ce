import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nonPublicKind, NonPublicAddressError, publicOnlyLookup } from '../../../../src/server/feeds/sources/private-address.ts';

describe('nonPublicKind', () => {
  it('names loopback, private, link-local, unique-local, unspecified and other non-public addresses', () => {
    const cases: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.10', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['fd12:3456::1', 'unique-local'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['100.64.0.1', 'shared'],
      ['224.0.0.251', 'multicast'],
      ['255.255.255.255', 'reserved'],
      // Addresses that carry an IPv4 address reach it.
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'link-local'],
      ['64:ff9b::10.0.0.1', 'private'],
      ['2002:c0a8:0101::1', 'private'],
      ['::7f00:1', 'reserved'],
      // Outside global unicast, or tunnels a translator could open: IPv4-translated, local-use NAT64, Teredo.
      ['::ffff:0:7f00:1', 'reserved'],
      ['64:ff9b:1::a00:1', 'reserved'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
      ['100::1', 'reserved'],
      ['not an address', 'reserved'],
    ];
    for (const [address, kind] of cases) assert.equal(nonPublicKind(address), kind, address);
  });

  it('lets public addresses be', () => {
    for (const address of ['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:1.1.1.1', '2002:0808:0808::1']) {
      assert.equal(nonPublicKind(address), undefined, address);
    }
  });
});

describe('publicOnlyLookup', () => {
  it('refuses a name whose address is not public, in both forms the resolver is asked in', async () => {
    for (const all of [true, false]) {
      const error = await new Promise<unknown>((resolve) => publicOnlyLookup('localhost', { all }, (err) => resolve(err)));
      assert.ok(error instanceof NonPublicAddressError, String(error));
      assert.equal(error.kind, 'loopback');
    }
  });

  it('passes the resolver failure on', async () => {
    const error = await new Promise<unknown>((resolve) => publicOnlyLookup('no-such-host.invalid', {}, (err) => resolve(err)));
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
  });
});
