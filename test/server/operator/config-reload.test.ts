import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planReload } from '../../../src/server/operator/config-reload.ts';
import { parseServerConfig } from '../../../src/server/config/config.ts';

const TOKEN = '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7';
const OTHER_TOKEN = 'f3a8c1d6e9b2f5a0c7d4e1b8a5f2c9d6';
const se = (file: string, extra: object = {}) => ({
  name: 'se-4b',
  threatTypes: ['SOCIAL_ENGINEERING'],
  sources: [{ file, format: 'urls' }],
  ...extra,
});
const config = (json: object) => parseServerConfig(json, '/srv');

describe('planReload', () => {
  it('takes keys, token, waits, feed limits and sources as they are, and says nothing', () => {
    const running = config({ apiKeys: ['a'], adminToken: TOKEN, lists: [se('a.txt')] });
    const next = config({
      apiKeys: ['b', 'c'],
      adminToken: OTHER_TOKEN,
      minimumWaitSeconds: 600,
      cacheDurationSeconds: 60,
      feedTimeoutSeconds: 5,
      lists: [se('b.txt')],
    });
    const plan = planReload(running, next);
    assert.deepEqual(plan.restartNeeded, []);
    assert.deepEqual(plan.config, next);
  });

  it('keeps the running value of every other setting, one line each', () => {
    const running = config({ keepVersions: 5, http: { maxConnections: 10 }, lists: [se('a.txt')] });
    const next = config({
      keepVersions: 6,
      adminListen: '127.0.0.1:9090',
      loadControl: { burstMax: 3 },
      upstreamSearches: { burst: 2 },
      http: { maxConnections: 20 },
      cors: { origins: ['https://mail.example'] },
      listCacheSeconds: 60,
      dataDir: 'history',
      apiKeys: ['new'],
      lists: [se('a.txt')],
    });
    const plan = planReload(running, next);
    assert.deepEqual(
      plan.restartNeeded.map((line) => line.split(':')[0]).sort(),
      ['adminListen', 'corsOrigins', 'dataDir', 'http', 'keepVersions', 'listCacheSeconds', 'loadControl', 'upstreamSearches'],
      'what docs/operations.md "Reloading" says takes a restart',
    );
    assert.deepEqual(plan.config, { ...running, apiKeys: ['new'] });
  });

  it('serves the running lists: one added waits, one removed stays, one defined anew keeps its definition and sources', () => {
    const mw = { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: ['evil.example/'] }] };
    const running = config({ lists: [se('a.txt'), mw] });
    const next = config({
      lists: [se('b.txt', { description: 'phishing' }), { name: 'uws-4b', threatTypes: ['UNWANTED_SOFTWARE'], sources: [] }],
    });
    const plan = planReload(running, next);
    assert.deepEqual(plan.config.lists, running.lists);
    assert.deepEqual(plan.restartNeeded, [
      'lists: se-4b is defined anew (types, hash length or description); it keeps its running definition and sources until a restart',
      'lists: mw-4b is removed; it is served, from its running sources, until a restart',
      'lists: uws-4b is new; it is served from the next restart',
    ]);
  });

  it('does not switch the operator endpoints or TLS on or off', () => {
    const tls = { cert: 'c.pem', key: 'k.pem' };
    const on = planReload(config({ adminToken: TOKEN, tls }), config({}));
    assert.equal(on.config.adminToken, TOKEN);
    assert.deepEqual(on.config.tls, { cert: '/srv/c.pem', key: '/srv/k.pem' });
    assert.deepEqual(on.restartNeeded, [
      'adminToken: switching the operator endpoints on or off takes a restart; they stay on, with the running token',
      'tls: switching HTTPS on or off takes a restart; the server goes on with the running certificate',
    ]);
    const off = planReload(config({}), config({ adminToken: TOKEN, tls }));
    assert.equal(off.config.adminToken, undefined);
    assert.equal(off.config.tls, undefined);
    assert.equal(off.restartNeeded.length, 2);
    const moved = planReload(config({ tls }), config({ tls: { cert: 'new.pem', key: 'new.key' } }));
    assert.deepEqual(
      moved,
      { config: config({ tls: { cert: 'new.pem', key: 'new.key' } }), restartNeeded: [] },
      'new files are read at once',
    );
  });
});
