import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientOptionError } from '../../src/client/client-errors.ts';
import { clientSettings } from '../../src/client/client-settings.ts';
import type { SafeBrowsingClientOptions } from '../../src/client/options.ts';
import type { ClientRuntime } from '../../src/client/runtime/client-runtime.ts';
import { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, WEB_RISK_THREAT_LISTS } from '../../src/lists/known-lists.ts';
import { nodeExpressionHasher, nodeSha256 } from '../../src/url/hash.ts';

/** A runtime that records the options it was asked to check, and refuses what `refuse` says. */
function runtime(refuse: (options: SafeBrowsingClientOptions) => boolean = () => false) {
  const checked: { options: SafeBrowsingClientOptions; protocol: string }[] = [];
  const parts: ClientRuntime = {
    hasher: nodeExpressionHasher,
    sha256: nodeSha256,
    openStore: () => Promise.resolve(undefined),
    connect: () => Promise.reject(new Error('no server in this test')),
    userAgent: 'test-runtime/1',
    checkOptions: (options, protocol) => {
      checked.push({ options, protocol });
      if (refuse(options)) throw new ClientOptionError('refused by the runtime', { option: 'lists' });
    },
  };
  return { parts, checked };
}

describe('clientSettings', () => {
  it('fills in the defaults: v5, real-time mode, the SB-11 threat lists and the global cache, kept where published', () => {
    const settings = clientSettings({}, runtime().parts);
    assert.equal(settings.protocol, 'v5');
    assert.equal(settings.mode, 'realtime');
    assert.deepEqual(settings.threatLists, [...DEFAULT_THREAT_LISTS]);
    assert.equal(settings.globalCache, GLOBAL_CACHE_LIST);
    assert.deepEqual([...settings.optional], [...DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST]);
    assert.equal(settings.server.serverUrl, 'https://safebrowsing.googleapis.com');
    assert.equal(settings.server.userAgent, 'test-runtime/1');
    assert.deepEqual(settings.server.sizeConstraints, { maxUpdateEntries: 0, maxDatabaseEntries: 0 });
  });

  it('keeps local lists over v4, named lists the server must publish, and no list without storage', () => {
    const v4 = clientSettings({ protocol: 'v4', lists: ['mw-4b'] }, runtime().parts);
    assert.equal(v4.mode, 'local');
    assert.equal(v4.globalCache, undefined);
    assert.deepEqual(v4.threatLists, ['mw-4b']);
    assert.deepEqual([...v4.optional], []);
    const nostorage = clientSettings({ mode: 'nostorage', lists: ['mw-4b'] }, runtime().parts);
    assert.deepEqual(nostorage.threatLists, []);
    assert.equal(nostorage.globalCache, undefined);
  });

  it("speaks Web Risk to Google's Web Risk server in JSON, in local mode with its three lists, and refuses what it lacks", () => {
    const webrisk = clientSettings({ protocol: 'webrisk' }, runtime().parts);
    assert.equal(webrisk.mode, 'local');
    assert.equal(webrisk.globalCache, undefined);
    assert.deepEqual(webrisk.threatLists, [...WEB_RISK_THREAT_LISTS]);
    assert.deepEqual(webrisk.threatLists, ['se-4b', 'mw-4b', 'uws-4b']);
    assert.equal(webrisk.server.serverUrl, 'https://webrisk.googleapis.com');
    assert.equal(webrisk.server.encoding, 'json');
    assert.equal(clientSettings({ protocol: 'webrisk', mode: 'nostorage' }, runtime().parts).threatLists.length, 0);
    const refused: [SafeBrowsingClientOptions, RegExp, string][] = [
      [{ protocol: 'webrisk', mode: 'realtime' }, /real-time mode needs the v5 protocol \(webrisk has no global cache\)/, 'mode'],
      [{ protocol: 'webrisk', ohttp: { relay: 'https://relay.example', keys: 'k' } }, /Oblivious HTTP carries v5/, 'ohttp'],
    ];
    for (const [options, message, option] of refused) {
      assert.throws(
        () => clientSettings(options, runtime().parts),
        (err: unknown) => err instanceof ClientOptionError && message.test(err.message) && err.option === option,
      );
    }
  });

  it("asks the runtime last, once every client's checks passed, with the protocol spoken", () => {
    const { parts, checked } = runtime((options) => options.lists?.includes('csda-32b') === true);
    assert.throws(() => clientSettings({ server: 'ftp://example.com' }, parts), /not an http or https URL/);
    assert.deepEqual(checked, [], 'not asked about options a client refuses anyway');
    const options: SafeBrowsingClientOptions = { protocol: 'v4', lists: ['csda-32b'] };
    assert.throws(() => clientSettings(options, parts), /refused by the runtime/);
    assert.deepEqual(checked, [{ options, protocol: 'v4' }]);
  });
});
