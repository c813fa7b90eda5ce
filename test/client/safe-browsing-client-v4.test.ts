import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { encodeV4RiceHashes } from '../../src/codec/index.ts';
import {
  FetchThreatListUpdatesResponseSchema,
  FindFullHashesResponseSchema,
  FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType as ResponseType,
  FetchThreatListUpdatesResponse_ListUpdateResponseSchema as ListUpdateResponseSchema,
  ThreatEntryType,
} from '../../src/proto/v4.ts';
import { BatchGetHashListsResponseSchema } from '../../src/proto/v5.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { v4ListOf } from '../../src/lists/v4-lists.ts';
import { checksumOf } from '../../src/store/hash-list.ts';
import { expressionHashString, nodeSha256 } from '../../src/url/hash.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import type { DecodedWireRequest } from '../../src/wire/rest/server-request.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { startFakeServer, type Answer, type FakeServer } from './fake-server.ts';
import { prefixList, prefixesOf } from './lists-fixture.ts';

const MIN = 60_000;
const BAD = 'malware.sbtest.example/';
const clock = new FakeClock();

function v4Update(name: string, state: string, prefixes: Uint32Array, minimumWaitMs = 30 * MIN): Answer {
  const list = v4ListOf(name);
  const rice = encodeV4RiceHashes(prefixes);
  return {
    rpc: 'FetchThreatListUpdates',
    message: create(FetchThreatListUpdatesResponseSchema, {
      listUpdateResponses: [
        create(ListUpdateResponseSchema, {
          ...list,
          responseType: ResponseType.FULL_UPDATE,
          additions: rice === undefined ? [] : [{ compressionType: 2, riceHashes: rice }],
          newClientState: Buffer.from(state),
          checksum: { sha256: checksumOf({ width: 4, values: prefixes }, nodeSha256) },
        }),
      ],
      minimumWaitDuration: durationFromMs(minimumWaitMs),
    }),
  };
}

let server: FakeServer;
let handler: (call: DecodedWireRequest) => Answer;
let dir: string;

before(async () => {
  server = await startFakeServer((call) => handler(call));
});
after(async () => {
  await server.close();
});
afterEach(async () => {
  server.requests.length = 0;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  assert.deepEqual(server.scriptErrors.splice(0), []);
});

describe('SafeBrowsingClient over v4', () => {
  it('updates with threatListUpdates:fetch and confirms with fullHashes:find', async () => {
    handler = (call) => {
      if (call.rpc === 'FetchThreatListUpdates') return v4Update('mw-4b', 'state-1', prefixesOf(BAD));
      assert.equal(call.rpc, 'FindFullHashes');
      return {
        rpc: 'FindFullHashes',
        message: create(FindFullHashesResponseSchema, {
          matches: [
            {
              ...v4ListOf('mw-4b'),
              threatEntryType: ThreatEntryType.URL,
              threat: { hash: Buffer.from(expressionHashString(BAD), 'latin1') },
              cacheDuration: durationFromMs(300_000),
            },
          ],
          negativeCacheDuration: durationFromMs(300_000),
        }),
      };
    };
    const sb = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], clock });
    assert.equal(sb.mode, 'local');
    await sb.update();
    const result = await sb.checkUrl(`http://${BAD}`);
    assert.equal(result.verdict, 'UNSAFE');
    assert.deepEqual(
      server.requests.map((r) => r.rpc),
      ['ListThreatLists', 'FetchThreatListUpdates', 'FindFullHashes'],
    );
    const find = server.requests[2]!;
    assert.equal(find.rpc === 'FindFullHashes' && Buffer.from(find.request.clientStates[0]!).toString(), 'state-1');
  });

  it('sends no fullHashes:find during its minimum wait, answers UNKNOWN for a listed prefix meanwhile and counts it (RF-3)', async () => {
    let finds = 0;
    handler = (call) => {
      if (call.rpc === 'FetchThreatListUpdates') return v4Update('mw-4b', 'state-1', prefixesOf(BAD, 'other.sbtest.example/'));
      finds++;
      return { rpc: 'FindFullHashes', message: create(FindFullHashesResponseSchema, { minimumWaitDuration: durationFromMs(60 * MIN) }) };
    };
    const sb = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], clock });
    await sb.update();
    assert.equal((await sb.checkUrl(`http://${BAD}`)).error, undefined);
    const deferred = await sb.checkUrl('http://other.sbtest.example/');
    assert.equal(deferred.verdict, 'UNKNOWN');
    assert.equal(deferred.error?.code, 'SBKIT_SEARCH_DEFERRED');
    assert.match(deferred.error.message, /may not be asked again/);
    assert.equal(finds, 1);
    assert.equal(sb.stats().deferred, 1);
    clock.advance(60 * MIN);
    await sb.checkUrl('http://other.sbtest.example/');
    assert.equal(finds, 2);
  });

  it('refuses real-time mode, which v4 cannot do', () => {
    assert.throws(() => new SafeBrowsingClient({ protocol: 'v4', mode: 'realtime' }), /real-time mode needs the v5 protocol/);
  });
});

describe('fullHashes:find waits outlive the process (RF-3, RF-4)', () => {
  /** A v4 server whose fullHashes:find answers say: no search for an hour (or fail with 503). */
  function hourlyServer(status = 200): () => number {
    let finds = 0;
    handler = (call) => {
      if (call.rpc === 'FetchThreatListUpdates') return v4Update('mw-4b', 'state-1', prefixesOf(BAD));
      finds++;
      if (status !== 200) return { status };
      return { rpc: 'FindFullHashes', message: create(FindFullHashesResponseSchema, { minimumWaitDuration: durationFromMs(60 * MIN) }) };
    };
    return () => finds;
  }

  it("a second client on the same data folder does not search within the first one's minimum wait", async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbkit-v4-wait-'));
    const finds = hourlyServer();
    const first = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], dataDir: dir, clock });
    await first.update();
    await first.checkUrl(`http://${BAD}`);
    await first.close();
    assert.equal(finds(), 1);
    clock.advance(30 * MIN);
    const second = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], dataDir: dir, clock });
    const result = await second.checkUrl(`http://${BAD}`);
    assert.equal(finds(), 1, 'no fullHashes:find within the hour');
    assert.match(result.error!.message, /may not be asked again/);
    await second.close();
  });

  it('keeps a search back-off even when the first client never closes (a crash)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbkit-v4-wait-'));
    const finds = hourlyServer(503);
    const first = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], dataDir: dir, clock, random: () => 0 });
    await first.update();
    assert.match((await first.checkUrl(`http://${BAD}`)).error!.message, /503/);
    clock.advance(10 * MIN);
    const second = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], dataDir: dir, clock });
    assert.match((await second.checkUrl(`http://${BAD}`)).error!.message, /may not be asked again/);
    assert.equal(finds(), 1, 'no fullHashes:find during the 15-minute back-off');
    clock.advance(5 * MIN);
    await second.checkUrl(`http://${BAD}`);
    assert.equal(finds(), 2);
  });
});

describe('moving a database from v4 to v5 (SB-14)', () => {
  it('sends the v4 state as the v5 version, with no reset of the local lists', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbkit-migrate-'));
    handler = () => v4Update('mw-4b', 'v4-state', prefixesOf(BAD));
    const v4 = new SafeBrowsingClient({ server: server.url, protocol: 'v4', lists: ['mw-4b'], dataDir: dir, clock });
    await v4.update();
    await v4.close();

    clock.advance(31 * MIN);
    handler = (call) => {
      assert.equal(call.rpc, 'BatchGetHashLists');
      assert.equal(call.rpc === 'BatchGetHashLists' && Buffer.from(call.request.version[0]!).toString(), 'v4-state');
      return {
        rpc: 'BatchGetHashLists',
        message: create(BatchGetHashListsResponseSchema, {
          hashLists: [
            prefixList('mw-4b', 'v5-version', new Uint32Array(0), { partial: true, after: prefixesOf(BAD), minimumWaitMs: 30 * MIN }),
          ],
        }),
      };
    };
    const v5 = new SafeBrowsingClient({ server: server.url, protocol: 'v5', mode: 'local', lists: ['mw-4b'], dataDir: dir, clock });
    assert.equal(v5.listInfo()[0]!.entries, 0, 'nothing loaded before open');
    await v5.open();
    assert.equal(v5.listInfo()[0]!.entries, 1, 'the v4 list is there under its v5 name');
    const summary = await v5.update();
    assert.deepEqual(summary.updated, ['mw-4b']);
    assert.equal(Buffer.from(v5.listInfo()[0]!.version, 'base64').toString(), 'v5-version');
  });
});
