import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamShares, type UpstreamShareLimits } from '../../../src/server/proxy/upstream-shares.ts';
import type { Requester } from '../../../src/server/guard/requester.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

const LIMITS: UpstreamShareLimits = {
  anonymousPrefixesPerMinute: 120,
  neighbourhoodPrefixesPerMinute: 480,
  keyedPrefixesPerMinute: 2400,
  relayedPrefixesPerMinute: 2400,
};

/** An address requester as requesterOf names one: its /64 and its /56. */
const slash64 = (n: number): Requester => ({ id: `address:2001:db8:1:${n}::/64`, keyed: false, neighbourhood: '2001:db8:1:0::/56' });
const RELAYED: Requester = { id: 'relay:192.0.2.50', keyed: false, relayed: true };

/** The refusal `spend` throws, or undefined when it counted the prefixes. */
function refusal(run: () => unknown): WireError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    assert.ok(error instanceof WireError, String(error));
    return error;
  }
}

describe('UpstreamShares', () => {
  it('counts the /64s of one neighbourhood together: 256 /64s do not make 256 shares', () => {
    const shares = new UpstreamShares(LIMITS);
    for (let n = 0; n < 4; n++)
      assert.equal(
        refusal(() => shares.spend(slash64(n), 120, 0)),
        undefined,
        `/64 number ${n}`,
      );
    const refused = refusal(() => shares.spend(slash64(4), 1, 1000));
    assert.match(refused!.message, /would send 481 prefixes of this network .* which accepts 480 of one network/);
    assert.equal(refused!.retryAfterSeconds, 59, 'until the oldest prefixes leave the window');
    assert.equal(
      refusal(() => shares.spend({ ...slash64(0), neighbourhood: '2001:db8:2:0::/56' }, 1, 1000))?.message.includes('client'),
      true,
    );
    assert.equal(
      refusal(() => shares.spend({ id: 'address:2001:db8:2::/64', keyed: false, neighbourhood: '2001:db8:2:0::/56' }, 120, 1000)),
      undefined,
    );
    assert.equal(
      refusal(() => shares.spend(slash64(5), 1, 60_000)),
      undefined,
      'a minute later, the neighbourhood may send again',
    );
  });

  it("gives a trusted relay's users one pool for many, each search no larger than a fresh address's", () => {
    const shares = new UpstreamShares(LIMITS);
    for (let i = 0; i < 20; i++)
      assert.equal(
        refusal(() => shares.spend(RELAYED, 120, i)),
        undefined,
        `relayed search ${i}`,
      );
    assert.match(refusal(() => shares.spend(RELAYED, 1, 100))!.message, /2401 prefixes of this relay .* 2400 of one relay/);
    const fresh = new UpstreamShares(LIMITS);
    assert.equal(
      refusal(() => fresh.spend(RELAYED, 250, 0)),
      undefined,
      'as much as sbkit sends in one request',
    );
    const tooLarge = refusal(() => fresh.spend(RELAYED, 251, 0));
    assert.equal(tooLarge?.status, 'INVALID_ARGUMENT', 'waiting would not help: a 400, not a 503');
    assert.match(tooLarge.message, /251 prefixes .* one search of this relay may send at most 250/);
  });

  it('refuses a search larger than any search of its requester may be with 400, naming the most, and counts nothing', () => {
    const shares = new UpstreamShares(LIMITS);
    const address: Requester = { id: 'address:192.0.2.8', keyed: false, neighbourhood: '192.0.2.8' };
    const anonymous = refusal(() => shares.spend(address, 251, 0));
    assert.equal(anonymous?.status, 'INVALID_ARGUMENT');
    assert.equal(anonymous.httpStatus, 400);
    assert.equal(anonymous.retryAfterSeconds, undefined, 'no Retry-After: the same search would be refused for ever');
    assert.match(
      anonymous.message,
      /would send 251 prefixes .* one search of this client may send at most 250, .* or search with an API key/,
    );
    assert.equal(shares.spend(address, 250, 0), 250, 'nothing was counted: one request’s worth still goes');
    const key: Requester = { id: 'key:batch', keyed: true };
    const keyed = refusal(() => shares.spend(key, 2401, 0));
    assert.equal(keyed?.status, 'INVALID_ARGUMENT');
    assert.match(keyed.message, /one search of this API key may send at most 2400/);
    assert.equal(shares.spend(key, 2400, 0), 2400, 'a search as large as the share goes');
    assert.equal(refusal(() => shares.spend(key, 1, 0))?.status, 'UNAVAILABLE', 'and the next waits for the window');
  });

  it('places a search by what its requester or neighbourhood sent in the last minute, a relayed one by its own size', () => {
    const shares = new UpstreamShares(LIMITS);
    assert.equal(shares.spend(slash64(1), 4, 0), 4);
    assert.equal(shares.spend(slash64(1), 4, 10), 8);
    assert.equal(shares.spend(slash64(2), 4, 20), 12, "the neighbourhood's prefixes count: the larger of the two");
    assert.equal(shares.spend(RELAYED, 200, 30), 200);
    assert.equal(shares.spend(RELAYED, 3, 40), 3, "another relay user's small search is not placed behind the first's");
    assert.equal(shares.spend(slash64(1), 4, 70_000), 4, 'a minute later the window has moved on');
  });

  it('counts by the second: a search leaves the window a minute after the start of its second', () => {
    const shares = new UpstreamShares(LIMITS);
    const alice: Requester = { id: 'address:192.0.2.7', keyed: false };
    shares.spend(alice, 60, 1_200);
    shares.spend(alice, 60, 1_900);
    assert.ok(refusal(() => shares.spend(alice, 1, 60_999)) instanceof WireError, 'the second that began at 1 s is within the window');
    assert.equal(shares.spend(alice, 120, 61_000), 120, 'both searches of that second left it together, at 61 s');
  });
});
