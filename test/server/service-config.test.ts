import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { type ServiceConfig, withConfiguredRedis } from '../../src/server/service-config.ts';

function service(redis: ServiceConfig['redis'], config: unknown): ServiceConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file: '/sbkit.json', config: parseServerConfig(config, '/') },
    redis,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 1, overlapMs: 0 },
    log: () => {},
  };
}

describe('withConfiguredRedis', () => {
  it("takes the configuration's redis when no --redis is given, and --redis over it", () => {
    const configured = { redis: { cluster: ['h:7000'], keyPrefix: 'fleet:' } };
    assert.deepEqual(withConfiguredRedis(service(undefined, configured)).redis, { url: { cluster: ['h:7000'] }, keyPrefix: 'fleet:' });
    assert.deepEqual(withConfiguredRedis(service(undefined, { redis: 'redis://h:1' })).redis, { url: 'redis://h:1', keyPrefix: 'sbkit:' });
    const flag = { url: 'redis://flag:6379', keyPrefix: 'sbkit:' };
    assert.deepEqual(withConfiguredRedis(service(flag, configured)).redis, flag);
    assert.equal(withConfiguredRedis(service(undefined, {})).redis, undefined);
  });
});
