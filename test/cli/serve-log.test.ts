import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/io.ts';
import { serveLog } from '../../src/cli/serve-log.ts';

/** A CliIo whose standard error is kept; `interactive` as a terminal would be. */
function capture(interactive: boolean): { io: CliIo; err: () => string } {
  let err = '';
  const io: CliIo = { out: () => {}, err: (text) => void (err += text), stdin: Readable.from([]), color: false, interactive };
  return { io, err: () => err };
}

describe('the log of sbkit serve', () => {
  it('writes JSON lines with level, time and msg when standard error is no terminal', async () => {
    const { io, err } = capture(false);
    const log = await serveLog(io, { logLevel: 'info' });
    log.info('listening on http://127.0.0.1:8080');
    log.warn('list se-4b: feed failed', { list: 'se-4b' });
    const lines = err()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.length, 2);
    assert.deepEqual(
      lines.map(({ level, msg }) => [level, msg]),
      [
        ['info', 'listening on http://127.0.0.1:8080'],
        ['warn', 'list se-4b: feed failed'],
      ],
    );
    assert.equal(lines[1]!['list'], 'se-4b');
    for (const { time } of lines) assert.ok(typeof time === 'string' && !Number.isNaN(Date.parse(time)), String(time));
    assert.equal(log.pretty, false);
  });

  it('writes readable lines on a terminal, or with --log-format pretty', async () => {
    for (const [interactive, format] of [
      [true, undefined],
      [false, 'pretty'],
    ] as const) {
      const { io, err } = capture(interactive);
      const log = await serveLog(io, { logLevel: 'info', logFormat: format });
      log.warn('list se-4b: feed failed');
      log.info('request', { reqId: 'a1-2', route: '/v5/hashes:search', status: 200, client: undefined, note: 'two words' });
      assert.match(
        err(),
        /^\d\d:\d\d:\d\d\.\d{3} WARN {2}sbkit serve: list se-4b: feed failed\n\d\d:\d\d:\d\d\.\d{3} INFO {2}sbkit serve: request reqId=a1-2 route=\/v5\/hashes:search status=200 note="two words"\n$/,
      );
      assert.equal(log.pretty, true);
    }
    const { io, err } = capture(true);
    (await serveLog(io, { logLevel: 'info', logFormat: 'json' })).info('forced');
    assert.equal((JSON.parse(err()) as { msg: string }).msg, 'forced', 'json on a terminal when asked for');
  });

  it('leaves out what is below --log-level', async () => {
    const { io, err } = capture(false);
    const log = await serveLog(io, { logLevel: 'warn' });
    log.debug('details');
    log.info('reloaded');
    log.warn('feed failed');
    log.fatal('cannot listen');
    assert.deepEqual(
      err()
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { level: string }).level),
      ['warn', 'fatal'],
    );
  });

  it('refuses a level or a format it does not know, naming those it does', async () => {
    await assert.rejects(
      serveLog(capture(false).io, { logLevel: 'verbose' }),
      /--log-level is one of fatal, error, warn, info, debug, not "verbose"/,
    );
    await assert.rejects(serveLog(capture(false).io, { logLevel: 'info', logFormat: 'xml' }), /--log-format is json or pretty, not "xml"/);
  });
});
