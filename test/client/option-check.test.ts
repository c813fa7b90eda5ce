// Options as a JavaScript caller passes them, through the public constructors: unknown names, values of
// the wrong type and values out of range are refused with a ClientOptionError naming the option.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ClientOptionError, SafeBrowsingClient } from '../../src/index.ts';
import { SafeBrowsingClient as BrowserClient } from '../../src/browser.ts';
import { CLIENT_OPTION_RULES } from '../../src/client/option-check.ts';

/** The ClientOptionError `options` are refused with (the constructor is typed; callers in JavaScript are not). */
function refusal(options: Record<string, unknown>, make = (o: never) => new SafeBrowsingClient(o)): ClientOptionError {
  try {
    make(options as never);
  } catch (error) {
    assert.ok(error instanceof ClientOptionError, String(error));
    assert.equal(error.code, 'SBKIT_CLIENT_OPTION');
    return error;
  }
  assert.fail(`${JSON.stringify(options)} was accepted`);
}

describe('client options from JavaScript', () => {
  it('refuses an unknown option, naming it and the known one it is likely a slip for', () => {
    const error = refusal({ srever: 'http://127.0.0.1:8080' });
    assert.equal(error.option, 'srever');
    assert.match(error.message, /^unknown option "srever" \(did you mean "server"\?\); the options are server, apiKey, /);
    assert.match(refusal({ timeout: 5000 }).message, /did you mean "timeoutMs"/);
    assert.doesNotMatch(refusal({ verbose: true }).message, /did you mean/, 'too far off to guess');
    assert.match(
      refusal({ cache: { maxEntires: 5 } }).message,
      /^unknown option "cache.maxEntires" \(did you mean "maxEntries"\?\); the options of cache are/,
    );
  });

  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ mode: 'nope' }, 'mode', /^mode is "nope"; it must be one of "realtime", "local", "nostorage"$/],
    [{ protocol: 5 }, 'protocol', /^protocol is 5; it must be one of "v5", "v4", "webrisk"$/],
    [{ encoding: 'xml' }, 'encoding', /one of "protobuf", "json"/],
    [{ timeoutMs: -5 }, 'timeoutMs', /^timeoutMs is -5; it must be a whole number of milliseconds from 1 to 2147483647$/],
    [{ timeoutMs: 1.5 }, 'timeoutMs', /whole number/],
    [{ timeoutMs: '10000' }, 'timeoutMs', /^timeoutMs is "10000"/],
    [{ timeoutMs: 2 ** 31 }, 'timeoutMs', /from 1 to 2147483647/],
    [{ maxResponseBytes: 0 }, 'maxResponseBytes', /bytes from 1/],
    [{ maxListEntries: 0 }, 'maxListEntries', /entries from 1/],
    [{ decoyPrefixes: 30 }, 'decoyPrefixes', /from 0 to 29/],
    [{ sizeConstraints: { maxUpdateEntries: -1 } }, 'sizeConstraints.maxUpdateEntries', /from 0 to 2147483647/],
    [{ cache: { emptyResponseCacheMs: Infinity } }, 'cache.emptyResponseCacheMs', /milliseconds from 0 to 86400000/],
    [{ cache: 5 }, 'cache', /^cache is 5; it must be an object$/],
    [{ firstUpdateWindowMs: NaN }, 'firstUpdateWindowMs', /milliseconds/],
    [{ apiKey: '' }, 'apiKey', /not empty/],
    [{ lists: 'se-4b' }, 'lists', /an array of list names/],
    [{ readOnly: 'yes' }, 'readOnly', /true or false/],
    [{ clock: { now: () => 0 } }, 'clock', /now\(\), setTimeout\(\) and clearTimeout\(\)/],
    [{ onEvent: 'log' }, 'onEvent', /a function/],
    [{ ohttp: { relay: 'http://relay.example/' } }, 'ohttp', /both relay .* and keys/],
    [{ protocol: 'v4', mode: 'realtime' }, 'mode', /real-time mode needs the v5 protocol/],
    [{ server: 'ftp://example.com' }, 'server', /not an http or https URL/],
    [{ lists: [] }, 'lists', /^lists is empty; realtime mode needs at least one threat list/],
    [{ mode: 'local', lists: [] }, 'lists', /local mode needs at least one threat list/],
  ];
  for (const [options, option, message] of cases) {
    it(`refuses ${JSON.stringify(options, (_, v: unknown) => (typeof v === 'function' ? 'fn' : Number.isNaN(v) || v === Infinity ? String(v) : v))}, naming ${option}`, () => {
      const error = refusal(options);
      assert.equal(error.option, option);
      assert.match(error.message, message);
    });
  }

  it('takes an empty list of lists in no-storage mode, which keeps none', () => {
    assert.equal(new SafeBrowsingClient({ mode: 'nostorage', lists: [] }).mode, 'nostorage');
  });

  it('takes undefined as the default of any option, as when a variable is unset', () => {
    const options = Object.fromEntries(Object.keys(CLIENT_OPTION_RULES).map((name) => [name, undefined]));
    assert.equal(new SafeBrowsingClient(options).mode, 'realtime');
  });

  it('never accepts a name it does not know (property)', () => {
    const known = new Set(Object.keys(CLIENT_OPTION_RULES));
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !known.has(name) && name !== '__proto__'),
        (name) => refusal({ [name]: 1 }).option === name,
      ),
    );
  });

  it('accepts every whole timeout in range (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (timeoutMs) => new SafeBrowsingClient({ timeoutMs }).mode === 'realtime'),
    );
  });

  it("checks the browser build's own options too", () => {
    const browser = (o: never) => new BrowserClient(o);
    assert.equal(refusal({ storage: 'localStorage' }, browser).option, 'storage');
    assert.match(refusal({ storag: 'memory' }, browser).message, /did you mean "storage"/);
    assert.equal(new BrowserClient({ storage: 'memory', databaseName: 'x' }).mode, 'realtime');
    assert.equal(refusal({ storage: 'memory' }).option, 'storage', "Node's client has no storage option");
  });
});
