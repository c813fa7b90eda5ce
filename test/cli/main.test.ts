import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT } from '../../src/cli/io.ts';
import { DEBUG_VARIABLE } from '../../src/cli/main.ts';
import { run } from './run.ts';

/** One line, sbkit's own: no stack trace. */
function assertOneLine(err: string, message: RegExp): void {
  assert.match(err, /^sbkit: [^\n]+\n$/, err);
  assert.match(err, message);
}

describe('sbkit exit statuses for errors', () => {
  it('refuses flags that do not go together with one line and status 4 (invalid input)', async () => {
    const cases: [string[], RegExp][] = [
      [['check', '--protocol', 'v4', '--mode', 'realtime', 'http://a.example/'], /real-time mode needs the v5 protocol/],
      [['check', '--protocol', 'v4', '--lists', 'gc-32b', 'http://a.example/'], /list "gc-32b" has no v4 equivalent/],
      [
        ['check', '--protocol', 'v4', '--lists', 'gc-32b', '--data', '/nonexistent/sbkit', 'http://a.example/'],
        /list "gc-32b" has no v4 equivalent/,
      ],
      [
        ['check', '--protocol', 'webrisk', '--mode', 'realtime', 'http://a.example/'],
        /real-time mode needs the v5 protocol \(webrisk has no global cache/,
      ],
      [['check', '--protocol', 'webrisk', '--lists', 'pha-4b', 'http://a.example/'], /list "pha-4b" has no Web Risk threat type/],
      [
        ['check', '--protocol', 'webrisk', '--ohttp-relay', 'http://r.example', '--ohttp-keys', 'k', 'http://a.example/'],
        /Oblivious HTTP carries v5 searches only; drop --protocol webrisk/,
      ],
      [['check', '--server', 'not a url', 'http://a.example/'], /the server "not a url" is not an http or https URL/],
      [['update', '--server', 'not a url', '--data', '/nonexistent/sbkit'], /the server "not a url" is not an http or https URL/],
    ];
    for (const [args, message] of cases) {
      const { status, out, err } = await run(args);
      assert.equal(status, EXIT.INVALID_INPUT, args.join(' '));
      assert.equal(out, '');
      assertOneLine(err, message);
    }
  });

  it('reports any other error in one line with status 2, never 1 (unsafe)', async () => {
    const { status, err } = await run(['update', '--data', '/dev/null/x']);
    assert.equal(status, EXIT.FAILED);
    assertOneLine(
      err,
      /local database \/dev\/null\/x: cannot create, read or write the folder \(ENOTDIR.*\); choose a folder this user may write \(SBKIT_DEBUG=1 shows where\)/,
    );
  });

  it(`shows the stack of such an error when ${DEBUG_VARIABLE} asks for it`, async () => {
    process.env[DEBUG_VARIABLE] = '1';
    try {
      const { status, err } = await run(['update', '--data', '/dev/null/x']);
      assert.equal(status, EXIT.FAILED);
      assert.match(
        err,
        /^sbkit: DatabaseStorageError: local database \/dev\/null\/x: cannot create, read or write the folder[^\n]*\n\s+at /,
      );
    } finally {
      delete process.env[DEBUG_VARIABLE];
    }
  });
});

describe('sbkit --help', () => {
  it('speaks to people, not in the rule numbers of docs/protocol.md, for every command', async () => {
    const commands = ['check', 'expressions', 'update', 'lists', 'serve', 'status', 'relay'];
    const top = await run(['--help']);
    assert.equal(top.status, EXIT.SAFE);
    for (const command of commands) assert.match(top.out, new RegExp(`^  ${command}\\b`, 'm'), `${command} is listed`);
    for (const command of commands) {
      const { status, out } = await run([command, '--help']);
      assert.equal(status, EXIT.SAFE, command);
      assert.match(out, new RegExp(`^Usage: sbkit ${command}`, 'm'));
      assert.doesNotMatch(out, /\b(SB|RF|LC)-\d/, `sbkit ${command} --help`);
    }
  });

  it("gives check's exit statuses as the bits they are", async () => {
    const { out } = await run(['check', '--help']);
    assert.match(
      out.replace(/\s+/g, ' '),
      /0 when every URL was checked and is safe, else the sum of 1 \(some unsafe\), 2 \(some not checked\), 4 \(some invalid\)/,
    );
  });
});
