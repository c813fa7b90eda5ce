import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../../src/server/http/app.ts';
import { SharedKeyRing } from '../../../src/server/ohttp/shared-key-ring.ts';
import { encodeBinaryHttpRequest } from '../../../src/wire/ohttp/binary-http.ts';
import { encapsulateRequest } from '../../../src/wire/ohttp/ohttp-client.ts';
import { parseKeyConfigs } from '../../../src/wire/ohttp/ohttp-keys.ts';
import { decapsulateRequest } from '../../../src/wire/ohttp/ohttp.ts';
import { demoCatalog } from '../fixture.ts';
import { deleteKeys, ensureRedis, RedisRelay, REDIS_URL, uniqueKeyPrefix } from '../redis-fixture.ts';
import { until } from '../../support/waiting.ts';
import { FakeClock } from '../../support/fake-clock.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const prefix = uniqueKeyPrefix();
const rings: SharedKeyRing[] = [];

async function ring(clock: FakeClock, url = REDIS_URL, random?: () => number): Promise<SharedKeyRing> {
  const made = await SharedKeyRing.connect({ url, keyPrefix: prefix, rotateMs: DAY, overlapMs: HOUR, clock, random });
  rings.push(made);
  return made;
}

before(ensureRedis);
after(async () => {
  for (const made of rings) await made.close();
  await deleteKeys(prefix);
});

describe('gateway keys shared through Redis', () => {
  it("are the same on two instances: a request encapsulated to one instance's configuration opens on the other", async () => {
    const clock = new FakeClock(1000 * DAY + 5 * HOUR);
    const first = await ring(clock);
    const second = await ring(clock);
    const [config] = await first.configs();
    assert.deepEqual(await second.configs(), await first.configs());
    const { message } = await encapsulateRequest(config!, new TextEncoder().encode('a search'));
    const opened = await decapsulateRequest(await second.keys(), message);
    assert.equal(new TextDecoder().decode(opened.request), 'a search');
    assert.equal(first.secondsUntilRotation(), 19 * 3600);
    clock.advance(HOUR);
    assert.equal(second.secondsUntilRotation(), 18 * 3600);
  });

  it('rotate on the clock: the replaced key is accepted for the overlap and then no more', async () => {
    const clock = new FakeClock(2000 * DAY + 23 * HOUR);
    // The lowest free key ID every time: 0 first, so the next period's must step aside.
    const lowest = () => 0;
    const first = await ring(clock, REDIS_URL, lowest);
    const second = await ring(clock, REDIS_URL, lowest);
    const [old] = await first.configs();
    assert.equal(old!.keyId, 0);
    clock.advance(HOUR + 1);
    const configs = await second.configs();
    assert.equal(configs.length, 2, 'the new key first, the old one still accepted');
    assert.deepEqual(configs[1], old);
    assert.equal(configs[0]!.keyId, 1, "not the old key's ID: a request's key ID picks one of the two");
    assert.deepEqual(await first.configs(), configs, 'both instances rotated to the same key');
    clock.advance(HOUR - 1);
    assert.deepEqual(await first.configs(), [configs[0]], 'the overlap is over');
    const { message } = await encapsulateRequest(old!, new Uint8Array([1]));
    await assert.rejects(decapsulateRequest(await first.keys(), message), /key/);
  });

  it('agree again within a minute when Redis loses the current key, under a new key ID that sends clients for the configuration', async () => {
    const clock = new FakeClock(4000 * DAY + 2 * HOUR);
    const lowest = () => 0;
    const first = await ring(clock, REDIS_URL, lowest);
    const second = await ring(clock, REDIS_URL, lowest);
    const [lost] = await first.configs();
    assert.deepEqual(await second.configs(), [lost]);
    assert.equal(lost!.keyId, 0);
    await deleteKeys(prefix);
    clock.advance(61_000);
    const [replacement] = await second.configs();
    assert.equal(replacement!.keyId, 1, "not the lost key's ID, though it is the lowest free one again");
    assert.deepEqual(await first.configs(), [replacement], 'the other instance reads the replacement');
    const { message } = await encapsulateRequest(lost!, new Uint8Array([1]));
    await assert.rejects(
      decapsulateRequest(await first.keys(), message),
      /is not one of this gateway's keys/,
      'an unknown key ID: the client refetches',
    );
  });

  it("never make a replaced period's key afresh: during the overlap, a key Redis lost and this instance never held is left out", async () => {
    const clock = new FakeClock(5000 * DAY + 23 * HOUR);
    const before = await ring(clock);
    await before.configs();
    await deleteKeys(prefix);
    clock.advance(HOUR + 1);
    const fresh = await ring(clock);
    assert.equal((await fresh.configs()).length, 1, 'only the current key: no client could hold one made now for the past period');
  });

  it('make the gateway answer 503 with Retry-After while Redis is away and a new key is due, and serve again when it is back', async () => {
    const relay = await RedisRelay.start();
    try {
      const clock = new FakeClock(3000 * DAY + 2 * HOUR);
      const app = createApp({ catalog: demoCatalog(), ohttpKeys: await ring(clock, relay.url) });
      const [config] = parseKeyConfigs((await app.inject({ url: '/ohttp-keys' })).rawPayload);
      await relay.cut();
      const inner = encodeBinaryHttpRequest({
        method: 'GET',
        scheme: 'http',
        authority: 'sb',
        path: '/v5/hashLists',
        headers: [],
        content: new Uint8Array(0),
      });
      const post = async () =>
        app.inject({
          method: 'POST',
          url: '/ohttp-gateway',
          headers: { 'content-type': 'message/ohttp-req' },
          payload: Buffer.from((await encapsulateRequest(config!, inner)).message),
        });
      assert.equal((await post()).statusCode, 200, 'keys in hand serve on while Redis is away');
      clock.advance(DAY);
      const away = await app.inject({ url: '/ohttp-keys' });
      assert.deepEqual([away.statusCode, away.headers['retry-after']], [503, '10']);
      assert.equal((await post()).statusCode, 503);
      await relay.restore();
      await until(
        5000,
        'the keys are read again once Redis is back',
        async () => (await app.inject({ url: '/ohttp-keys' })).statusCode === 200,
      );
    } finally {
      await relay.cut();
    }
  });
});
