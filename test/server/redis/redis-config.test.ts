import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import { parseServerConfig } from '../../../src/server/config/config.ts';
import { parseRedisConfig } from '../../../src/server/redis/redis-config.ts';

describe('parseRedisConfig', () => {
  it('takes a URL of any form, or an object naming Sentinels or a Cluster', () => {
    assert.equal(parseRedisConfig(undefined, 'redis'), undefined);
    assert.deepEqual(parseRedisConfig('redis+cluster://h:7000,h:7001', 'redis'), { target: 'redis+cluster://h:7000,h:7001' });
    assert.deepEqual(
      parseRedisConfig({ sentinels: ['h:26379', 'h:26380'], name: 'mymaster', password: 'pw', db: 1, keyPrefix: 'a:' }, 'redis'),
      { target: { sentinels: ['h:26379', 'h:26380'], name: 'mymaster', password: 'pw', db: 1 }, keyPrefix: 'a:' },
    );
    assert.deepEqual(parseServerConfig({ redis: { cluster: ['h:7000'] } }, '/').redis, { target: { cluster: ['h:7000'] } });
  });

  it('names the field of an address that is none', () => {
    for (const [value, field, message] of [
      ['redis+sentinel://h:26379', 'redis', /name of the primary/],
      [{ sentinels: ['h'], name: 'm', db: 16 }, 'redis.db', /15/],
      [{ cluster: 'h:7000' }, 'redis.cluster', /array/],
      [{ cluster: ['h'], hosts: [] }, 'redis.hosts', /not a known setting/],
      [{ sentinels: ['h'] }, 'redis', /go with name/],
    ] as const) {
      assert.throws(
        () => parseRedisConfig(value, 'redis'),
        (error: unknown) => error instanceof ConfigError && error.field === field && message.test(error.message),
        JSON.stringify(value),
      );
    }
  });
});
