import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_HTTP_LIMITS, httpServerOptions } from '../../../src/server/guard/http-limits.ts';

describe('httpServerOptions', () => {
  it('gives fastify and Node every deadline, none of them off', () => {
    assert.deepEqual(httpServerOptions(DEFAULT_HTTP_LIMITS), {
      connectionTimeout: 30_000,
      keepAliveTimeout: 5_000,
      requestTimeout: 30_000,
      http: { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1000 },
    });
  });

  it('bounds the head by the whole request, and checks often enough for short deadlines', () => {
    const options = httpServerOptions({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 60_000, requestTimeoutMs: 300 });
    assert.equal(options.http.headersTimeout, 300);
    assert.equal(options.http.connectionsCheckingInterval, 30);
    assert.equal(
      httpServerOptions({ ...DEFAULT_HTTP_LIMITS, headersTimeoutMs: 50, requestTimeoutMs: 50 }).http.connectionsCheckingInterval,
      10,
    );
  });
});
