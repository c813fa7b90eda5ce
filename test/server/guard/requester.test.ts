import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TrustedProxies } from '../../../src/server/guard/client-address.ts';
import { requesterOf } from '../../../src/server/guard/requester.ts';
import { INNER_REQUEST_ADDRESS, OUTER_FORWARDED_FOR_HEADER, OUTER_PEER_HEADER } from '../../../src/server/inner-request.ts';

const NO_PROXIES = new TrustedProxies([]);
const KEYS = new Set(['partner-key']);

describe('requesterOf', () => {
  it('is the key when the server accepts it, the address otherwise (IPv6 by /64), whatever the User-Agent', () => {
    const keyed = requesterOf({ url: '/v5/hashes:search?key=partner-key', headers: {}, peer: '192.0.2.1' }, NO_PROXIES, KEYS);
    assert.equal(keyed.keyed, true);
    assert.match(keyed.id, /^key:/);
    assert.ok(!keyed.id.includes('partner-key'), 'a digest, not the key');
    assert.deepEqual(requesterOf({ url: '/v5/x?key=made-up', headers: {}, peer: '192.0.2.1' }, NO_PROXIES, KEYS), {
      id: 'address:192.0.2.1',
      keyed: false,
      neighbourhood: '192.0.2.1',
    });
    const v6 = (peer: string) => requesterOf({ url: '/', headers: { 'user-agent': peer }, peer }, NO_PROXIES, KEYS).id;
    assert.equal(v6('2001:db8:1:2::1'), v6('2001:db8:1:2:ffff::9'));
  });

  it("names an OHTTP inner request by the encapsulating request's peer, and ignores those headers from anyone else", () => {
    const inner = (peer: string, forwardedFor?: string) =>
      requesterOf(
        {
          url: '/v5/hashes:search',
          headers: { [OUTER_PEER_HEADER]: peer, ...(forwardedFor === undefined ? {} : { [OUTER_FORWARDED_FOR_HEADER]: forwardedFor }) },
          peer: INNER_REQUEST_ADDRESS,
        },
        new TrustedProxies(['10.0.0.0/8']),
        KEYS,
      ).id;
    assert.equal(inner('198.51.100.7'), 'address:198.51.100.7');
    assert.notEqual(inner('198.51.100.7'), inner('198.51.100.8'), 'OHTTP users are not one requester');
    assert.equal(inner('10.0.0.2', '203.0.113.5'), 'address:203.0.113.5', 'behind a trusted proxy, the forwarded address');
    const outside = requesterOf({ url: '/', headers: { [OUTER_PEER_HEADER]: '198.51.100.7' }, peer: '192.0.2.9' }, NO_PROXIES, KEYS);
    assert.equal(outside.id, 'address:192.0.2.9', 'a client cannot claim another peer');
  });

  it('names the users of a trusted OHTTP relay as one pool, and an address by its neighbourhood too', () => {
    const relays = new TrustedProxies(['198.51.100.0/24']);
    const inner = (peer: string) =>
      requesterOf(
        { url: '/v5/hashes:search', headers: { [OUTER_PEER_HEADER]: peer }, peer: INNER_REQUEST_ADDRESS },
        NO_PROXIES,
        KEYS,
        relays,
      );
    assert.deepEqual(inner('198.51.100.7'), { id: 'relay:198.51.100.7', keyed: false, relayed: true });
    assert.deepEqual(
      inner('192.0.2.7'),
      { id: 'address:192.0.2.7', keyed: false, neighbourhood: '192.0.2.7' },
      'an untrusted relay is one address',
    );
    const direct = requesterOf({ url: '/v5/hashes:search', headers: {}, peer: '198.51.100.7' }, NO_PROXIES, KEYS, relays);
    assert.equal(direct.relayed, undefined, "a relay's own requests, not its users', are an address's");
    const v6 = requesterOf({ url: '/', headers: {}, peer: '2001:db8:1:2ff::1' }, NO_PROXIES, KEYS, relays);
    assert.deepEqual(v6, { id: 'address:2001:db8:1:2ff::/64', keyed: false, neighbourhood: '2001:db8:1:200::/56' });
  });
});
