// The list updater through the client: lists the server does not publish are refused by name (it is
// asked which it has before a new name is stored), lists that stopped being current stop vouching for
// URLs, and an update that sends nothing says why and until when. A scripted server on loopback.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema, type HashList, SearchHashesResponseSchema } from '../../../src/proto/v5.ts';
import { ListsNotCurrentError, UpdateLoopError } from '../../../src/client/client-errors.ts';
import { UnknownListError } from '../../../src/lists/unknown-list-error.ts';
import type { ClientEvent, SafeBrowsingClientOptions } from '../../../src/client/options.ts';
import { SafeBrowsingClient } from '../../../src/client/safe-browsing-client.ts';
import { currentForMs, MIN_CURRENT_MS } from '../../../src/client/updates/update-schedule.ts';
import type { DecodedWireRequest } from '../../../src/wire/rest/server-request.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { type Answer, type FakeServer, listingAnswer, startFakeServer } from '../fake-server.ts';
import { fullHashesOf, fullHashList, prefixesOf, prefixList } from '../lists-fixture.ts';

const MIN = 60_000;
const BAD = 'malware.sbtest.example/';

function batchOf(...lists: HashList[]): Answer {
  return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
}

/** Each list asked for in a batch: `mw-4b` holds BAD, the global cache popular.example, the others nothing; waits of 30 minutes. */
function answerBatch(call: DecodedWireRequest): Answer {
  if (call.rpc !== 'BatchGetHashLists') return { status: 500 };
  const lists: HashList[] = call.request.names.map((name) =>
    name === 'gc-32b'
      ? fullHashList(name, 'g1', fullHashesOf('popular.example/'))
      : prefixList(name, 'v1', name === 'mw-4b' ? prefixesOf(BAD) : new Uint32Array(0), { minimumWaitMs: 30 * MIN }),
  );
  return { rpc: 'BatchGetHashLists', message: create(BatchGetHashListsResponseSchema, { hashLists: lists }) };
}

let server: FakeServer;
/** Every server the tests started, closed at the end. */
const servers: FakeServer[] = [];

async function serverPublishing(names: readonly string[] | 'scripted', script = answerBatch): Promise<FakeServer> {
  const started = await startFakeServer(script, { publishes: names });
  servers.push(started);
  return started;
}

/** A server of se-4b and the global cache that answers searches with nothing, counting them; `lists` answers the rest. */
async function countingSearches(lists: (call: DecodedWireRequest) => Answer): Promise<{ server: FakeServer; searches: () => number }> {
  let searches = 0;
  const server = await serverPublishing(['se-4b', 'gc-32b'], (call) => {
    if (call.rpc !== 'SearchHashes') return lists(call);
    searches++;
    return { rpc: 'SearchHashes', message: create(SearchHashesResponseSchema, {}) };
  });
  return { server, searches: () => searches };
}

function client(on: FakeServer, options: SafeBrowsingClientOptions = {}): SafeBrowsingClient {
  return new SafeBrowsingClient({ server: on.url, clock: new FakeClock(), mode: 'local', ...options });
}

before(async () => {
  server = await serverPublishing(['se-4b', 'mw-4b', 'gc-32b']);
});
afterEach(() => {
  for (const s of servers) {
    assert.deepEqual(s.scriptErrors.splice(0), []);
    s.requests.length = 0;
  }
});
after(async () => {
  for (const s of servers) await s.close();
});

describe('lists the server does not publish', () => {
  it('refuses a named list the server lacks, naming the lists it has, and never stores it', async () => {
    const events: ClientEvent[] = [];
    const sb = client(server, { lists: ['foo-4b', 'mw-4b'], onEvent: (e) => events.push(e) });
    const summary = await sb.update();
    assert.ok(summary.error instanceof UnknownListError);
    assert.equal(summary.error.code, 'SBKIT_UNKNOWN_LIST');
    assert.deepEqual(summary.error.lists, ['foo-4b']);
    assert.deepEqual(summary.error.available, ['se-4b', 'mw-4b', 'gc-32b']);
    assert.match(summary.error.message, /publishes no list "foo-4b"; it publishes se-4b, mw-4b, gc-32b/);
    assert.deepEqual(summary.notServed, ['foo-4b']);
    assert.deepEqual(summary.updated, ['mw-4b']);
    const batches = server.requests.filter((r) => r.rpc === 'BatchGetHashLists');
    assert.deepEqual(
      batches.map((r) => r.rpc === 'BatchGetHashLists' && r.request.names),
      [['mw-4b']],
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'lists-not-published'),
      [{ type: 'lists-not-published', lists: ['foo-4b'], available: ['se-4b', 'mw-4b', 'gc-32b'] }],
    );
    // Checks cannot lean on a list that does not exist: UNKNOWN, naming it.
    const result = await sb.checkUrl('http://safe.example/');
    assert.equal(result.verdict, 'UNKNOWN');
    assert.ok(result.error instanceof UnknownListError);
  });

  it('keeps the default lists the server publishes and leaves out, without error, those it lacks', async () => {
    const sb = client(server);
    const summary = await sb.update();
    assert.equal(summary.error, undefined);
    assert.deepEqual(summary.notServed, ['uws-4b', 'uwsa-4b', 'pha-4b']);
    assert.deepEqual(summary.updated, ['se-4b', 'mw-4b']);
    const safe = await sb.checkUrl('http://safe.example/');
    assert.deepEqual([safe.verdict, safe.answeredBy], ['SAFE', 'database']);
  });

  it('counts a server with none of the default threat lists as an error, and checks as UNKNOWN', async () => {
    const bare = await serverPublishing(['csda-32b']);
    const sb = client(bare);
    const summary = await sb.update();
    assert.ok(summary.error instanceof UnknownListError);
    assert.deepEqual(summary.error.lists, ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b']);
    assert.equal((await sb.checkUrl('http://safe.example/')).verdict, 'UNKNOWN');
  });

  it('asks about a missing list again only after half an hour, and takes it once the server has it', async () => {
    let published = ['se-4b'];
    const changing = await serverPublishing('scripted', (call) =>
      call.rpc === 'ListHashLists' ? listingAnswer('ListHashLists', published) : answerBatch(call),
    );
    const clock = new FakeClock();
    const sb = client(changing, { clock, lists: ['se-4b', 'mw-4b'] });
    const first = await sb.update();
    assert.deepEqual(first.notServed, ['mw-4b']);
    clock.advance(29 * MIN);
    published = ['se-4b', 'mw-4b'];
    const waiting = await sb.update();
    assert.deepEqual(waiting.updated, []);
    assert.deepEqual(waiting.notServed, ['mw-4b'], 'still known to be missing');
    assert.ok(waiting.error instanceof UnknownListError);
    clock.advance(1 * MIN);
    const taken = await sb.update();
    assert.deepEqual([taken.error, taken.notServed, taken.updated], [undefined, [], ['se-4b', 'mw-4b']]);
  });

  for (const status of [400, 404, 405, 501]) {
    it(`updates as before from a server that has no listing of its lists (${status})`, async () => {
      const old = await serverPublishing('scripted', (call) => (call.rpc === 'ListHashLists' ? { status } : answerBatch(call)));
      const sb = client(old, { lists: ['mw-4b'] });
      const summary = await sb.update();
      assert.deepEqual([summary.error, summary.updated], [undefined, ['mw-4b']]);
    });
  }

  it('takes a listing that fails otherwise (500) for a failed update, and backs off', async () => {
    const broken = await serverPublishing('scripted', (call) => (call.rpc === 'ListHashLists' ? { status: 500 } : answerBatch(call)));
    const sb = client(broken, { lists: ['mw-4b'] });
    const summary = await sb.update();
    assert.equal(summary.error?.code, 'SBKIT_WIRE_RESPONSE_ERROR_STATUS');
    assert.notEqual(summary.backoffUntil, undefined);
    assert.deepEqual(
      broken.requests.map((r) => r.rpc),
      ['ListHashLists'],
    );
  });

  it('over v4 asks threatLists, and refuses a list whose triple the server does not have', async () => {
    const v4 = await serverPublishing(['se-4b']);
    const sb = client(v4, { protocol: 'v4', lists: ['mw-4b'] });
    const summary = await sb.update();
    assert.ok(summary.error instanceof UnknownListError);
    assert.deepEqual(summary.error.available, ['se-4b']);
    assert.deepEqual(
      v4.requests.map((r) => r.rpc),
      ['ListThreatLists'],
    );
  });
});

describe('lists that are no longer current', () => {
  it('vouch for no URL once past two of their waits, and again after an update', async () => {
    const clock = new FakeClock(Date.parse('2023-11-14T22:13:20.000Z'));
    const sb = client(server, { clock, lists: ['se-4b', 'mw-4b'] });
    await sb.update();
    const fresh = await sb.checkUrl('http://safe.example/');
    assert.deepEqual([fresh.verdict, fresh.answeredBy], ['SAFE', 'database']);
    // The server's wait is 30 minutes: current for an hour (currentForMs), then out of date.
    assert.equal(currentForMs(30 * MIN), 60 * MIN);
    clock.advance(60 * MIN);
    assert.equal((await sb.checkUrl('http://safe.example/')).verdict, 'SAFE');
    clock.advance(1);
    const stale = await sb.checkUrl('http://safe.example/');
    assert.equal(stale.verdict, 'UNKNOWN');
    assert.ok(stale.error instanceof ListsNotCurrentError);
    assert.equal(stale.error.code, 'SBKIT_LISTS_NOT_CURRENT_STALE');
    assert.deepEqual(stale.error.lists, ['se-4b', 'mw-4b']);
    assert.match(stale.error.message, /last updated at 2023-11-14T22:13:20.000Z and are out of date/);
    await sb.update();
    assert.equal((await sb.checkUrl('http://safe.example/')).verdict, 'SAFE');
  });

  it('vouch for nothing before their first download, so a client just started says UNKNOWN, not SAFE', async () => {
    const sb = client(server, { lists: ['mw-4b'] });
    const result = await sb.checkUrl('http://safe.example/');
    assert.equal(result.verdict, 'UNKNOWN');
    assert.equal(result.error?.code, 'SBKIT_LISTS_NOT_CURRENT_NEVER_UPDATED');
    assert.deepEqual([sb.stats().unknown, sb.stats().failures], [1, 0], 'no search failed: none was sent');
    assert.equal(server.requests.length, 0);
  });

  it('stay current at least an hour however short the waits, and two days at most', () => {
    assert.equal(currentForMs(0), MIN_CURRENT_MS);
    assert.equal(currentForMs(5 * MIN), MIN_CURRENT_MS);
    assert.equal(currentForMs(24 * 60 * MIN), 48 * 60 * MIN);
    assert.equal(currentForMs(10 * 24 * 60 * MIN), 48 * 60 * MIN, 'a wait counts for a day at most');
  });

  it('in real-time mode send URLs of the global cache to the server rather than to lists that cannot vouch', async () => {
    const clock = new FakeClock();
    const rt = await countingSearches(answerBatch);
    const sb = client(rt.server, { clock, mode: 'realtime', lists: ['se-4b'] });
    await sb.update();
    // In the global cache, and the threat lists current: they decide, nobody is asked (SB-8).
    const current = await sb.checkUrl('http://popular.example/');
    assert.deepEqual([current.verdict, current.answeredBy, rt.searches()], ['SAFE', 'database', 0]);
    clock.advance(60 * MIN + 1);
    // The threat lists out of date: the global cache no longer sends the URL to them, the server answers.
    const stale = await sb.checkUrl('http://popular.example/');
    assert.deepEqual([stale.verdict, stale.answeredBy, rt.searches()], ['SAFE', 'server', 1]);
  });
});

describe('a global cache that is no longer current', () => {
  it('sends no URL past the server, even while the threat lists are current', async () => {
    const clock = new FakeClock();
    const rt = await countingSearches((call) => {
      if (call.rpc !== 'BatchGetHashLists') return { status: 500 };
      // The threat list asks for a day's wait (current for two), the global cache for none (current for an hour).
      return batchOf(
        ...call.request.names.map((name) =>
          name === 'gc-32b'
            ? fullHashList(name, 'g1', fullHashesOf('popular.example/'), 0)
            : prefixList(name, 'v1', new Uint32Array(0), { minimumWaitMs: 24 * 60 * MIN }),
        ),
      );
    });
    const sb = client(rt.server, { clock, mode: 'realtime', lists: ['se-4b'] });
    await sb.update();
    assert.deepEqual([(await sb.checkUrl('http://popular.example/')).answeredBy, rt.searches()], ['database', 0]);
    clock.advance(60 * MIN + 1);
    const past = await sb.checkUrl('http://popular.example/');
    assert.deepEqual([past.verdict, past.answeredBy, rt.searches()], ['SAFE', 'server', 1]);
  });
});

describe('lists whose updates are answered but cannot be kept', () => {
  it('go stale as if unanswered: an answer refused does not keep the old copy current', async () => {
    const clock = new FakeClock();
    let rounds = 0;
    const growing = await serverPublishing(['mw-4b'], (call) => {
      if (call.rpc !== 'BatchGetHashLists') return { status: 500 };
      // The first answer holds one prefix, later ones three: more than the client's maxListEntries.
      const prefixes = rounds++ === 0 ? prefixesOf(BAD) : prefixesOf(BAD, 'a.example/', 'b.example/');
      return batchOf(prefixList('mw-4b', `v${rounds}`, prefixes, { minimumWaitMs: 30 * MIN }));
    });
    const sb = client(growing, { clock, lists: ['mw-4b'], maxListEntries: 2, random: () => 0 });
    await sb.update();
    clock.advance(30 * MIN);
    const refused = await sb.update();
    assert.equal(refused.error?.code, 'SBKIT_LIST_TOO_LARGE');
    clock.advance(30 * MIN);
    assert.equal((await sb.checkUrl('http://safe.example/')).verdict, 'SAFE', 'an hour after the copy was stored, still current');
    clock.advance(1);
    const stale = await sb.checkUrl('http://safe.example/');
    assert.deepEqual([stale.verdict, stale.error?.code], ['UNKNOWN', 'SBKIT_LISTS_NOT_CURRENT_STALE']);
  });
});

describe('a server that keeps an update from settling', () => {
  /** A server of mw-4b whose answers `answer` makes from the count of batches so far, without waits. */
  async function batches(answer: (batch: number) => HashList) {
    let count = 0;
    const scripted = await serverPublishing(['mw-4b'], (call) =>
      call.rpc === 'BatchGetHashLists' ? batchOf(answer(count++)) : { status: 500 },
    );
    return { server: scripted, batches: () => count };
  }
  const wrongChecksum = () => prefixList('mw-4b', 'v1', prefixesOf(BAD), { checksum: new Uint8Array(32) });

  it('fetches a refused list again in full at once (SB-9), and takes it when that answer is good', async () => {
    const { server: healing, batches: sent } = await batches((batch) =>
      batch === 0 ? wrongChecksum() : prefixList('mw-4b', 'v2', prefixesOf(BAD), { minimumWaitMs: 30 * MIN }),
    );
    const summary = await client(healing, { lists: ['mw-4b'] }).update();
    assert.equal(summary.error, undefined);
    assert.deepEqual(summary.updated, ['mw-4b']);
    assert.equal(sent(), 2);
  });

  it('backs off (RF-4) when the full fetch is refused too, instead of fetching again and again', async () => {
    const clock = new FakeClock();
    const { server: broken, batches: sent } = await batches(wrongChecksum);
    const sb = client(broken, { clock, lists: ['mw-4b'], random: () => 0 });
    const summary = await sb.update();
    assert.ok(summary.error instanceof UpdateLoopError, String(summary.error));
    assert.deepEqual([summary.error.code, summary.error.lists], ['SBKIT_UPDATE_LOOP_REFUSED_AGAIN', ['mw-4b']]);
    assert.equal(sent(), 2, 'the answer, then the full fetch SB-9 asks for');
    assert.equal(summary.backoffUntil, clock.now() + 15 * MIN);
    assert.equal(sb.stats().consecutiveUpdateFailures, 1);
    assert.equal((await sb.checkUrl('http://safe.example/')).verdict, 'UNKNOWN', 'the list was dropped: nothing vouches for a URL');
    await sb.update();
    assert.equal(sent(), 2, 'nothing more before the back-off ends');
  });

  it('backs off when the server asks for more updates at once than one update makes', async () => {
    const clock = new FakeClock();
    // A good answer each time, with a new version and no wait: "again at once" (SB-12), for ever.
    const { server: endless, batches: sent } = await batches((batch) => prefixList('mw-4b', `v${batch}`, prefixesOf(BAD)));
    const sb = client(endless, { clock, lists: ['mw-4b'], random: () => 0 });
    const summary = await sb.update();
    assert.ok(summary.error instanceof UpdateLoopError, String(summary.error));
    assert.deepEqual([summary.error.code, summary.error.lists], ['SBKIT_UPDATE_LOOP_ROUNDS', ['mw-4b']]);
    assert.equal(sent(), 64);
    assert.deepEqual(summary.updated, ['mw-4b'], 'what it stored stays stored');
    assert.equal(summary.nextUpdateAt, clock.now() + 15 * MIN);
  });
});

describe('the listing of lists and back-off (RF-4, RF-5)', () => {
  it('leaves back-off growing: a listing answered is no update answered', async () => {
    const clock = new FakeClock();
    // The global cache is not published, so its name is asked about again every half hour, before updates that fail.
    const failing = await serverPublishing(['mw-4b'], () => ({ status: 500 }));
    const sb = client(failing, { clock, mode: 'realtime', lists: ['mw-4b'], random: () => 0 });
    const failures: number[] = [];
    for (let i = 0; i < 4; i++) {
      const summary = await sb.update();
      failures.push(sb.stats().consecutiveUpdateFailures);
      clock.advance(summary.nextUpdateAt - clock.now());
    }
    assert.deepEqual(failures, [1, 2, 3, 4]);
    assert.ok(failing.requests.filter((r) => r.rpc === 'ListHashLists').length >= 2, 'the listing went out again meanwhile');
  });
});

describe('an update that sends nothing', () => {
  it("says so right after start(): RF-2's random first moment, and until when", async () => {
    const clock = new FakeClock();
    const sb = client(server, { clock, lists: ['mw-4b'], random: () => 0.5 });
    await sb.start();
    const summary = await sb.update();
    assert.deepEqual(summary.updated, []);
    assert.deepEqual(summary.deferred, { reason: 'start-delay', until: clock.now() + 30_000 });
    assert.equal(server.requests.length, 0);
    await sb.close();
  });

  it("says so during the lists' minimum wait (RF-3) and during back-off (RF-4)", async () => {
    const clock = new FakeClock();
    let failing = false;
    const flaky = await serverPublishing(['mw-4b'], (call) => (failing ? { status: 500 } : answerBatch(call)));
    const sb = client(flaky, { clock, lists: ['mw-4b'], random: () => 0 });
    assert.equal((await sb.update()).deferred, undefined);
    assert.deepEqual((await sb.update()).deferred, { reason: 'minimum-wait', until: clock.now() + 30 * MIN });
    clock.advance(30 * MIN);
    failing = true;
    const failed = await sb.update();
    assert.equal(failed.deferred, undefined, 'a request went out and failed: not deferred');
    assert.equal(failed.error?.code, 'SBKIT_WIRE_RESPONSE_ERROR_STATUS');
    assert.deepEqual((await sb.update()).deferred, { reason: 'backoff', until: clock.now() + 15 * MIN });
  });
});
