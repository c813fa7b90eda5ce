import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseListenAddress } from '../../../src/server/http/listen-address.ts';

describe('parseListenAddress', () => {
  it('reads HOST:PORT, IPv6 in brackets', () => {
    assert.deepEqual(parseListenAddress('127.0.0.1:9090'), { host: '127.0.0.1', port: 9090 });
    assert.deepEqual(parseListenAddress('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseListenAddress('admin.internal:8081'), { host: 'admin.internal', port: 8081 });
  });

  it('says what is wrong with anything else', () => {
    for (const text of ['127.0.0.1', ':9090', '::1:9090', '[nope]:1', 'host:65536', 'host:port', '']) {
      assert.match((parseListenAddress(text) as { problem: string }).problem, /HOST:PORT/, text);
    }
  });
});
