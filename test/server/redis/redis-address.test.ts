import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readRedisAddress, redisLabel } from '../../../src/server/redis/redis-address.ts';
import { connectRedis, RedisConnectionError } from '../../../src/server/redis/redis-connection.ts';

const host = fc.oneof(fc.ipV4(), fc.domain());
const node = fc.record({ host, port: fc.integer({ min: 1, max: 65535 }) });

describe('readRedisAddress', () => {
  it('reads a Sentinel set: hosts, name, credentials, db', () => {
    assert.deepEqual(readRedisAddress('redis+sentinel://app:s%40cret@10.0.0.1:26379,10.0.0.2:26380,sentinel-3/mymaster?db=2'), {
      kind: 'sentinel',
      name: 'mymaster',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: 'sentinel-3', port: 26379 },
      ],
      db: 2,
      username: 'app',
      password: 's@cret',
    });
    assert.deepEqual(readRedisAddress('redis+sentinel://:pw@[::1]:26379/primary'), {
      kind: 'sentinel',
      name: 'primary',
      sentinels: [{ host: '::1', port: 26379 }],
      db: 0,
      password: 'pw',
    });
  });

  it('reads a Cluster’s seed nodes, and one server as node-redis takes it', () => {
    assert.deepEqual(readRedisAddress('redis+cluster://h1:7000,h2:7001,h3'), {
      kind: 'cluster',
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 7001 },
        { host: 'h3', port: 6379 },
      ],
    });
    assert.deepEqual(readRedisAddress('rediss://u:p@h:6380/1'), { kind: 'single', url: 'rediss://u:p@h:6380/1' });
  });

  it('reads the configuration object as the URL it stands for', () => {
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 15 }), (nodes, db) => {
        const list = nodes.map((n) => `${n.host}:${n.port}`);
        assert.deepEqual(
          readRedisAddress({ sentinels: list, name: 'mymaster', db }),
          readRedisAddress(`redis+sentinel://${list.join(',')}/mymaster?db=${db}`),
        );
        assert.deepEqual(readRedisAddress({ cluster: list }), readRedisAddress(`redis+cluster://${list.join(',')}`));
        assert.deepEqual(readRedisAddress({ cluster: list }), { kind: 'cluster', nodes: nodes.map(({ host, port }) => ({ host, port })) });
      }),
    );
  });

  it('says what is wrong with an address that is none', () => {
    for (const [target, problem] of [
      ['redis+sentinel://h:26379', /name of the primary/],
      ['redis+sentinel://h:26379/m?db=16', /0 to 15/],
      ['redis+sentinel://h:26379/m?timeout=1', /\?db=N only/],
      ['redis+cluster://h:7000/0', /no name or database/],
      ['redis+cluster://h:99999', /no host:port/],
      ['redis+cluster://', /no host:port/],
      [{ sentinels: ['h'] }, /go with name/],
      [{ cluster: ['h'], sentinels: ['h'], name: 'm' }, /one of url, sentinels/],
      [{ cluster: ['h'], db: 1 }, /no name and no db/],
    ] as const) {
      const read = readRedisAddress(target);
      assert.ok('problem' in read, JSON.stringify(target));
      assert.match(read.problem, problem);
    }
  });

  it('labels an address without its credentials', () => {
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 3 }), fc.string({ minLength: 1 }), (nodes, secret) => {
        const hosts = nodes.map((n) => `${n.host}:${n.port}`).join(',');
        const password = encodeURIComponent(secret);
        for (const url of [`redis+sentinel://user:${password}@${hosts}/m`, `redis+cluster://user:${password}@${hosts}`]) {
          const label = redisLabel(url);
          assert.ok(!label.includes(`:${password}@`) && !label.includes('user'), label);
          assert.ok(label.includes(hosts), label);
        }
      }),
    );
  });

  it('labels an address that cannot be read without its credentials either', () => {
    for (const url of [
      'redis://u:s3cret-word@host:99999',
      'redis+sentinel://u:s3cret-word@h1:70000/mymaster',
      'redis://:s3cret-word@[::1/0',
      'redis://host:6379/?password=s3cret-word',
    ]) {
      const label = redisLabel(url);
      assert.ok(!label.includes('s3cret-word'), label);
    }
  });
});

describe('connectRedis with a Sentinel or Cluster address', () => {
  it('rejects one that is none with invalid-url, naming the form', async () => {
    await assert.rejects(
      connectRedis('redis+sentinel://127.0.0.1:26379', 1000),
      (error: unknown) =>
        error instanceof RedisConnectionError &&
        error.reason === 'invalid-url' &&
        /redis\+sentinel:\/\/127\.0\.0\.1:26379/.test(error.message),
    );
  });
});
