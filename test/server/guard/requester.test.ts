import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TrustedProxies } from '../../../src/server/guard/client-address.ts';
import { requesterOf } from '../../../src/server/guard/requester.ts';
import { INNER_REQUEST_ADDRESS, OUTER_FORWARDED_FOR_HEADER, OUTER_PEER_HEADER } from '../../../src/server/ohttp/gateway-routes.ts';

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
});
