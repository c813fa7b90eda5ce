import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpLimitFlags } from '../../src/cli/http-limit-flags.ts';
import { EXIT, UsageError } from '../../src/cli/io.ts';
import { run } from './run.ts';

describe('the deadline and connection flags of sbkit serve and sbkit relay', () => {
  it('turns seconds into milliseconds, and sets only what is given', () => {
    assert.deepEqual(httpLimitFlags({ host: '127.0.0.1' }), {});
    assert.deepEqual(
      httpLimitFlags({
        headersTimeout: '2',
        requestTimeout: '0.5',
        keepAliveTimeout: '75',
        idleTimeout: '60',
        maxConnections: '500',
        maxConnectionsPerAddress: '20',
      }),
      {
        headersTimeoutMs: 2000,
        requestTimeoutMs: 500,
        keepAliveTimeoutMs: 75_000,
        idleTimeoutMs: 60_000,
        maxConnections: 500,
        maxConnectionsPerAddress: 20,
      },
    );
  });

  for (const [flags, message] of [
    [{ requestTimeout: '0' }, '--request-timeout must be a number of seconds from 0.1 to 3600, not "0"'],
    [{ headersTimeout: '' }, '--headers-timeout must be a number of seconds from 0.1 to 600, not ""'],
    [{ maxConnections: 'lots' }, '--max-connections must be a whole number from 1 to 1000000, not "lots"'],
    [{ maxConnectionsPerAddress: '2.5' }, '--max-connections-per-address must be a whole number from 1 to 1000000, not "2.5"'],
  ] as const) {
    it(`refuses ${JSON.stringify(flags)}`, () => {
      assert.throws(
        () => httpLimitFlags(flags),
        (error: unknown) => error instanceof UsageError && error.message === message,
      );
    });
  }

  it('are described by --help, and a bad one stops either command with exit status 4', async () => {
    for (const command of ['serve', 'relay']) {
      const help = (await run([command, '--help'])).out;
      for (const flag of [
        '--headers-timeout',
        '--request-timeout',
        '--keep-alive-timeout',
        '--idle-timeout',
        '--max-connections-per-address',
      ])
        assert.ok(help.includes(flag), `${command} --help names ${flag}`);
    }
    const serve = await run(['serve', '--port', '0', '--max-connections', '0']);
    assert.equal(serve.status, EXIT.INVALID_INPUT);
    assert.match(serve.err, /--max-connections must be a whole number/);
    const relay = await run(['relay', '--gateway', 'http://127.0.0.1:9/ohttp-gateway', '--request-timeout', 'soon']);
    assert.equal(relay.status, EXIT.INVALID_INPUT);
    assert.match(relay.err, /--request-timeout must be a number of seconds/);
    const timeout = await run(['relay', '--gateway', 'http://127.0.0.1:9/ohttp-gateway', '--gateway-timeout', '0']);
    assert.equal(timeout.status, EXIT.INVALID_INPUT);
  });
});
