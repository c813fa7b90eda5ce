import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { create, fromBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import * as v4 from '../../../../src/proto/v4.ts';
import * as v5 from '../../../../src/proto/v5.ts';
import { answerCall } from '../../../../src/server/api/dispatch.ts';
import { ListAnswerTags, listAnswerTag } from '../../../../src/server/api/answers/list-etag.ts';
import { type ApiSettings, DEFAULT_API_SETTINGS } from '../../../../src/server/api/settings.ts';
import { ListCatalog } from '../../../../src/server/catalog.ts';
import { ListHistory } from '../../../../src/server/lists/list-history.ts';
import type { WireEncoding } from '../../../../src/wire/encoding.ts';
import type { RpcCall } from '../../../../src/wire/rest/routes.ts';
import { encodeWireResponse } from '../../../../src/wire/rest/server-response.ts';
import { FakeClock } from '../../../support/fake-clock.ts';
import { listChanges, NO_CALLER, ownSource, playListChange } from '../fixtures.ts';

const fullHash = (n: number) => createHash('sha256').update(`entry ${n}`).digest();
/** Contents share entries, so that diffs between them have removals and additions, and limits cut them. */
const CONTENTS = [[], [1, 2, 3], [2, 3, 4, 5, 6], [1, 5, 6, 7, 8, 9, 10], [3, 4, 11, 12]].map((ns) => Buffer.concat(ns.map(fullHash)));
const SETTINGS: ApiSettings[] = [
  DEFAULT_API_SETTINGS,
  { ...DEFAULT_API_SETTINGS, minimumWaitMs: 600_000 },
  { ...DEFAULT_API_SETTINGS, changingMinimumWaitMs: 300_000, changingWindowMs: 3_600_000 },
];

/** The time of every catalog's publications and of every answer, unless a test moves one of its own. */
const CLOCK = new FakeClock();

function catalog(clock = CLOCK): ListCatalog {
  const list = (name: string, hashLength: 4 | 32, keep: number) =>
    new ListHistory(
      { name, hashLength, threatTypes: hashLength === 4 ? ['SOCIAL_ENGINEERING'] : [], likelySafeTypes: [], description: '' },
      { keep, clock },
    );
  return new ListCatalog([list('se-4b', 4, 3), list('gc-32b', 32, 2)]);
}

const CONSTRAINTS = [
  { maxUpdateEntries: 0, maxDatabaseEntries: 0 },
  { maxUpdateEntries: 1, maxDatabaseEntries: 0 },
  { maxUpdateEntries: 0, maxDatabaseEntries: 2 },
  { maxUpdateEntries: 2, maxDatabaseEntries: 4 },
];
const ENCODINGS: WireEncoding[] = ['protobuf', 'json'];
/** Names as clients send them: canonical, an SB-11 alias, and one this server does not publish. */
const NAMES = ['se-4b', 'se', 'gc-32b', 'nope-4b'];
/** Batches that differ in order, in an alias, in a name not published. */
const BATCHES = [
  ['se-4b', 'gc-32b'],
  ['gc-32b', 'se-4b'],
  ['se', 'nope-4b'],
  ['se-4b', 'nope-4b'],
  ['se-4b', 'mw-4b'],
];
/** v4 triples: se-4b under the public and the browsers' number, and three with no list here, each one field apart. */
const TRIPLES = [
  { threatType: v4.ThreatType.SOCIAL_ENGINEERING, platformType: v4.PlatformType.ANY_PLATFORM, threatEntryType: v4.ThreatEntryType.URL },
  {
    threatType: v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL,
    platformType: v4.PlatformType.ANY_PLATFORM,
    threatEntryType: v4.ThreatEntryType.URL,
  },
  { threatType: v4.ThreatType.MALWARE, platformType: v4.PlatformType.ANY_PLATFORM, threatEntryType: v4.ThreatEntryType.URL },
  { threatType: v4.ThreatType.MALWARE, platformType: v4.PlatformType.ANDROID, threatEntryType: v4.ThreatEntryType.URL },
  { threatType: v4.ThreatType.MALWARE, platformType: v4.PlatformType.ANDROID, threatEntryType: v4.ThreatEntryType.EXECUTABLE },
];
const publishes = fc.array(fc.record({ list: fc.constantFrom('se-4b', 'gc-32b'), content: fc.nat(CONTENTS.length - 1) }), {
  minLength: 1,
  maxLength: 8,
});

interface Asked {
  call: RpcCall;
  encoding: WireEncoding;
  settings: ApiSettings;
  /** Asked with size constraints: the versions given out may name cut-short transfers. */
  constrained: boolean;
}

const limited = (constraints: (typeof CONSTRAINTS)[number]) => constraints.maxUpdateEntries > 0 || constraints.maxDatabaseEntries > 0;

/**
 * Requests that differ from one another in one input at a time: every name, version (none, bytes of no
 * list, the last settled versions answers gave out and the last of cut-short transfers), constraint,
 * encoding and wait, alone and in batches.
 */
function grid(settled: readonly Uint8Array[], transfers: readonly Uint8Array[]): Asked[] {
  const asked: Asked[] = [];
  const sent = [new Uint8Array(0), Buffer.from('not a version'), ...transfers.slice(-2), ...settled.slice(-5)];
  for (const encoding of ENCODINGS) {
    for (const settings of SETTINGS) {
      for (const name of NAMES)
        for (const version of sent)
          for (const sizeConstraints of CONSTRAINTS) {
            const request = create(v5.GetHashListRequestSchema, { name, version, sizeConstraints });
            asked.push({
              call: { rpc: 'GetHashList', apiVersion: 'v5', request },
              encoding,
              settings,
              constrained: limited(sizeConstraints),
            });
          }
    }
    for (const names of BATCHES)
      for (const version of [[], sent.slice(2, 3), sent.slice(2, 4), [sent[0]!, ...sent.slice(-1)], sent.slice(-2).reverse()])
        for (const sizeConstraints of CONSTRAINTS.slice(0, 2)) {
          const request = create(v5.BatchGetHashListsRequestSchema, { names, version, sizeConstraints });
          asked.push({
            call: { rpc: 'BatchGetHashLists', apiVersion: 'v5', request },
            encoding,
            settings: DEFAULT_API_SETTINGS,
            constrained: limited(sizeConstraints),
          });
        }
    for (const triples of [[0], [1], [2], [3], [4], [0, 2]])
      for (const state of sent)
        for (const rice of [true, false])
          for (const constraints of CONSTRAINTS) {
            const supportedCompressions = [rice ? v4.CompressionType.RICE : v4.CompressionType.RAW];
            const request = create(v4.FetchThreatListUpdatesRequestSchema, {
              listUpdateRequests: triples.map((t) => ({ ...TRIPLES[t]!, state, constraints: { ...constraints, supportedCompressions } })),
            });
            asked.push({
              call: { rpc: 'FetchThreatListUpdates', apiVersion: 'v4', request },
              encoding,
              settings: DEFAULT_API_SETTINGS,
              constrained: limited(constraints),
            });
          }
  }
  return asked;
}

/** The versions a binary list answer gives out. */
function versionsIn(call: RpcCall, body: Uint8Array): Uint8Array[] {
  if (call.rpc === 'GetHashList') return [fromBinary(v5.HashListSchema, body).version];
  if (call.rpc === 'BatchGetHashLists') return fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists.map((l) => l.version);
  return fromBinary(v4.FetchThreatListUpdatesResponseSchema, body).listUpdateResponses.map((l) => l.newClientState);
}

/** After each publish, asks the whole grid; says, for each list answer, its tag and its bytes. */
async function play(steps: readonly { list: string; content: number }[]): Promise<{ tag: string; bytes: string; request: string }[]> {
  const lists = catalog();
  // By their hex, in the order first given out.
  const settled = new Map<string, Uint8Array>();
  const transfers = new Map<string, Uint8Array>();
  const answers = [];
  for (const { list, content } of steps) {
    lists.get(list)!.publish(CONTENTS[content]!);
    for (const { call, encoding, settings, constrained } of grid([...settled.values()], [...transfers.values()])) {
      const tag = listAnswerTag(lists, call, encoding, settings, CLOCK.now());
      if (tag === undefined) {
        // Only hashList/{name} of a list not published goes without a tag: it is a 404.
        assert.ok(call.rpc === 'GetHashList' && lists.get(call.request.name) === undefined);
        continue;
      }
      const body = encodeWireResponse(
        call.rpc,
        await answerCall(lists, ownSource(lists), call, settings, CLOCK.now(), NO_CALLER),
        encoding,
      ).body;
      answers.push({ tag, bytes: Buffer.from(body).toString('hex'), request: `${encoding} ${JSON.stringify(call, bytesAsHex)}` });
      if (encoding !== 'protobuf') continue;
      for (const version of versionsIn(call, body)) (constrained ? transfers : settled).set(Buffer.from(version).toString('hex'), version);
    }
  }
  return answers;
}

function bytesAsHex(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return typeof value === 'bigint' ? String(value) : value;
}

describe('listAnswerTag', () => {
  it('equal tags come with equal bytes, whatever was published and asked in between', async () => {
    let distinctTags = 0;
    await fc.assert(
      fc.asyncProperty(publishes, async (steps) => {
        const bytesOfTag = new Map<string, { bytes: string; request: string }>();
        for (const { tag, bytes, request } of await play(steps)) {
          const before = bytesOfTag.get(tag);
          if (before === undefined) bytesOfTag.set(tag, { bytes, request });
          else assert.equal(bytes, before.bytes, `${tag} was given to ${before.request} and to ${request}, with other bytes`);
        }
        distinctTags += bytesOfTag.size;
      }),
      { numRuns: 12 },
    );
    // The property holds for a tag that changes every time too; caching needs it not to (below).
    assert.ok(distinctTags > 1000, `only ${distinctTags} tags`);
  });

  it('is the same for the same request while nothing is published, and changes with a publish, the encoding and the wait', () => {
    const lists = catalog();
    lists.get('se-4b')!.publish(CONTENTS[1]!);
    const call: RpcCall = { rpc: 'GetHashList', apiVersion: 'v5', request: create(v5.GetHashListRequestSchema, { name: 'se-4b' }) };
    const tag = listAnswerTag(lists, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now());
    assert.match(tag ?? '', /^"[A-Za-z0-9_-]{22}"$/, 'a strong tag: quoted, no W/');
    assert.equal(listAnswerTag(lists, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()), tag);
    assert.notEqual(listAnswerTag(lists, call, 'json', DEFAULT_API_SETTINGS, CLOCK.now()), tag);
    assert.notEqual(listAnswerTag(lists, call, 'protobuf', SETTINGS[1]!, CLOCK.now()), tag);
    // Another list's publish leaves this answer, and its tag, alone.
    lists.get('gc-32b')!.publish(CONTENTS[2]!);
    assert.equal(listAnswerTag(lists, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()), tag);
    // The same content again changes nothing; new content changes the answer.
    lists.get('se-4b')!.publish(CONTENTS[1]!);
    assert.equal(listAnswerTag(lists, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()), tag);
    lists.get('se-4b')!.publish(CONTENTS[2]!);
    assert.notEqual(listAnswerTag(lists, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()), tag);
  });

  it('is the same on every instance that published the same content', () => {
    const [one, two] = [catalog(), catalog()];
    for (const lists of [one, two]) for (const content of [CONTENTS[1]!, CONTENTS[3]!]) lists.get('se-4b')!.publish(content);
    const call: RpcCall = {
      rpc: 'BatchGetHashLists',
      apiVersion: 'v5',
      request: create(v5.BatchGetHashListsRequestSchema, { names: ['se-4b', 'gc-32b'] }),
    };
    assert.equal(
      listAnswerTag(one, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()),
      listAnswerTag(two, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()),
    );
  });

  it('gives no tag to searches and list metadata', () => {
    const lists = catalog();
    for (const call of [
      {
        rpc: 'SearchHashes',
        apiVersion: 'v5',
        request: create(v5.SearchHashesRequestSchema, { hashPrefixes: [fullHash(1).subarray(0, 4)] }),
      },
      { rpc: 'ListHashLists', apiVersion: 'v5', request: create(v5.ListHashListsRequestSchema) },
    ] as RpcCall[]) {
      assert.equal(listAnswerTag(lists, call, 'protobuf', DEFAULT_API_SETTINGS, CLOCK.now()), undefined);
    }
  });
});

describe('ListAnswerTags', () => {
  const steps = fc.array(
    fc.oneof(
      ...listChanges(['se-4b', 'gc-32b'], CONTENTS.length),
      // Across the changing window (an hour in SETTINGS[2]), or not.
      fc.record({ wait: fc.integer({ min: 1, max: 4_000_000 }) }),
    ),
    { minLength: 1, maxLength: 8 },
  );

  it('gives the tag listAnswerTag works out, for the same call asked again through publishes, adoptions, waits, encodings and settings', () => {
    fc.assert(
      fc.property(steps, (played) => {
        const clock = new FakeClock(1_000_000);
        const lists = catalog(clock);
        const tags = new ListAnswerTags();
        // Every call object is asked again and again, as decoded-requests.ts hands it out.
        const asked = grid([], []).filter((_, i) => i % 7 === 0);
        const same = (call: RpcCall, encoding: WireEncoding, settings: ApiSettings) =>
          assert.equal(
            tags.tagOf(lists, call, encoding, settings, clock.now()),
            listAnswerTag(lists, call, encoding, settings, clock.now()),
          );
        // Each call has an encoding and settings of its own, asked last at every check, so that the next
        // check finds its tag kept from before the step; in between, every other encoding and settings.
        const check = () => {
          asked.forEach(({ call }, i) => {
            const encoding = ENCODINGS[i % ENCODINGS.length]!;
            const settings = SETTINGS[i % SETTINGS.length]!;
            same(call, encoding, settings);
            for (const other of ENCODINGS) for (const otherSettings of SETTINGS) same(call, other, otherSettings);
            same(call, encoding, settings);
          });
        };
        check();
        for (const step of played) {
          if ('wait' in step) clock.advance(step.wait);
          else playListChange(lists, () => catalog(clock), step, CONTENTS);
          check();
        }
      }),
      { numRuns: 15 },
    );
  });
});
