import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import { parseServerConfig } from '../../../src/server/config/config.ts';
import { parseHttpLimitsConfig } from '../../../src/server/http/http-limits-config.ts';

describe('the http section of the configuration', () => {
  it('turns seconds into milliseconds and leaves out what it does not set', () => {
    assert.deepEqual(parseHttpLimitsConfig(undefined, 'http'), {});
    assert.deepEqual(
      parseHttpLimitsConfig(
        {
          headersTimeoutSeconds: 2.5,
          requestTimeoutSeconds: 0.3,
          keepAliveTimeoutSeconds: 61,
          idleTimeoutSeconds: 3600,
          maxConnections: 1,
          maxConnectionsPerAddress: 1_000_000,
        },
        'http',
      ),
      {
        headersTimeoutMs: 2500,
        requestTimeoutMs: 300,
        keepAliveTimeoutMs: 61_000,
        idleTimeoutMs: 3_600_000,
        maxConnections: 1,
        maxConnectionsPerAddress: 1_000_000,
      },
    );
  });

  for (const [section, field, message] of [
    [{ requestTimeoutSeconds: 0 }, 'http.requestTimeoutSeconds', /from 0.1 to 3600, not number 0/],
    [{ headersTimeoutSeconds: 601 }, 'http.headersTimeoutSeconds', /from 0.1 to 600/],
    [{ keepAliveTimeoutSeconds: '5' }, 'http.keepAliveTimeoutSeconds', /not the string "5"/],
    [{ maxConnections: 10.5 }, 'http.maxConnections', /a whole number from 1 to 1000000/],
    [{ maxConnectionsPerAddress: 0 }, 'http.maxConnectionsPerAddress', /a whole number from 1/],
    [{ requestTimeout: 30 }, 'http.requestTimeout', /not a known setting here; the known ones are headersTimeoutSeconds/],
    [[], 'http', /must be an object/],
  ] as const) {
    it(`refuses ${JSON.stringify(section)}, naming ${field}`, () => {
      assert.throws(
        () => parseServerConfig({ http: section }, '/etc/sbkit'),
        (error: unknown) => error instanceof ConfigError && error.field === field && message.test(error.problem),
      );
    });
  }

  it('is part of the server configuration, empty when left out', () => {
    assert.deepEqual(parseServerConfig({}, '/etc/sbkit').http, {});
    assert.deepEqual(parseServerConfig({ http: { maxConnectionsPerAddress: 20 } }, '/etc/sbkit').http, { maxConnectionsPerAddress: 20 });
  });
});
