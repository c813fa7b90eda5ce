import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { readRedisAddress, redisLabel } from '../../../src/server/redis/redis-address.ts';
import { connectRedis, RedisConnectionError } from '../../../src/server/redis/redis-connection.ts';
import { freePort } from '../../support/ports.ts';

const host = fc.oneof(fc.ipV4(), fc.domain());
const node = fc.record({ host, port: fc.integer({ min: 1, max: 65535 }) });
/** Any printable text an operator may type as a user or password, ASCII or not, URL delimiters and all. */
const secret = fc.oneof(fc.string({ minLength: 1 }), fc.string({ minLength: 1, unit: 'grapheme' }));
/** A label as quoted for an address that is none, or not. */
const unquoted = (label: string) => label.replace(/^"(.*)"$/, '$1');

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

  it('labels every form of address as it would be labelled without credentials, whatever the password holds', () => {
    fc.assert(
      fc.property(secret, secret, fc.boolean(), (user, password, encoded) => {
        const credentials = encoded ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : `${user}:${password}`;
        for (const bare of [
          'redis://127.0.0.1:6379',
          'rediss://10.0.0.1:6380/2',
          'redis+sentinel://h1:26379,[::1]:26380/mymaster?db=1',
          'redis+cluster://h1:7000,h2',
        ]) {
          const url = bare.replace('//', `//${credentials}@`);
          // An address that is none is shown as written, without its query.
          assert.ok([redisLabel(bare), bare.replace(/\?.*$/, '')].includes(unquoted(redisLabel(url))), `${url}: ${redisLabel(url)}`);
        }
      }),
    );
  });

  it('refuses a user or password whose unencoded delimiter would end the host part, naming the remedy', () => {
    for (const url of [
      'redis://default:hunter2#x@127.0.0.1:6379',
      'redis://default:12#x@127.0.0.1:6379',
      'rediss://u:s3cr/et@127.0.0.1:6379',
      'redis://u:s3cr?et@127.0.0.1:6379',
      'redis+sentinel://u:p/w@h:1/m',
      'redis+cluster://u:p?w@h:7000',
    ]) {
      const read = readRedisAddress(url);
      assert.ok('problem' in read, url);
      assert.match(read.problem, /percent-encoded \(%2F, %3F, %23\)/);
    }
    // An '@' may stay unencoded, as new URL() takes it: the host is what follows the last one.
    for (const target of ['redis+sentinel://u:p@ss@h:1/m', { url: 'redis+cluster://u:p@ss@h:1' }]) {
      const read = readRedisAddress(target);
      assert.ok(!('problem' in read) && read.kind !== 'single', JSON.stringify(read));
      const hosts = read.kind === 'sentinel' ? read.sentinels : read.nodes;
      assert.deepEqual([hosts, read.username, read.password], [[{ host: 'h', port: 1 }], 'u', 'p@ss']);
    }
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

describe('connectRedis never tells a password', () => {
  /** The RedisConnectionError connecting to `url` rejects with. */
  const rejection = async (url: string): Promise<RedisConnectionError> => {
    const error = await connectRedis(url, 1000).then(
      async (connection) => {
        await connection.close();
        assert.fail(`${url} connected`);
      },
      (error: unknown) => error,
    );
    assert.ok(error instanceof RedisConnectionError, String(error));
    return error;
  };

  it('says what went wrong around the label, in words that hold nothing of the password', async () => {
    const bare = `redis://127.0.0.1:${await freePort()}`;
    const shape = async (url: string) => (await rejection(url)).message.replace(redisLabel(url), '<label>');
    // What may be said: Redis does not answer, a delimiter left unencoded, a '%' that starts no escape.
    const shapes = new Set([await shape(bare), await shape(bare.replace('//', '//u:#@')), await shape(bare.replace('//', '//u:%@'))]);
    assert.equal(shapes.size, 3, [...shapes].join('\n'));
    await fc.assert(
      fc.asyncProperty(secret, secret, fc.boolean(), async (user, password, encoded) => {
        const credentials = encoded ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}` : `${user}:${password}`;
        const url = bare.replace('//', `//${credentials}@`);
        assert.equal(unquoted(redisLabel(url)), bare);
        assert.ok(shapes.has(await shape(url)), await shape(url));
      }),
      { numRuns: 50 },
    );
  });

  it('keeps no cause that holds the URL', async () => {
    for (const url of ['redis://u:s3cret-word@127.0.0.1:99999', 'redis://u:s3cret-word@[::1/0', 'redis://u:s3cret-word@127.0.0.1:6379/x']) {
      const error = await rejection(url);
      assert.equal(error.reason, 'invalid-url');
      assert.ok(!inspect(error).includes('s3cret-word'), inspect(error));
    }
  });
});
