import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { encodeV4RiceHashes, encodeV4RiceIndices, prefixesToBytes, RiceDecodeError } from '../../../src/codec/index.ts';
import type { FetchedList, ListState, ServerSettings } from '../../../src/client/transport/transport.ts';
import { V4Transport } from '../../../src/client/transport/transport-v4.ts';
import { ListTooLargeError, V4ListUpdateError } from '../../../src/client/client-errors.ts';
import { NoV4ListError, v4ListOf } from '../../../src/lists/v4-lists.ts';
import {
  CompressionType,
  type FetchThreatListUpdatesRequest,
  FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType as ResponseType,
  type FetchThreatListUpdatesResponse_ListUpdateResponse as ListUpdateResponse,
  FetchThreatListUpdatesResponse_ListUpdateResponseSchema as ListUpdateResponseSchema,
  FetchThreatListUpdatesResponseSchema,
  type FindFullHashesRequest,
  FindFullHashesResponseSchema,
  PlatformType,
  ThreatEntryType,
  type ThreatEntrySet,
  ThreatEntrySetSchema,
  type ThreatMatch,
  ThreatMatchSchema,
  ThreatType,
} from '../../../src/proto/v4.ts';
import { checksumOf, HashList, type HashListUpdate } from '../../../src/store/hash-list.ts';
import { expressionHashString, nodeSha256, prefix32 } from '../../../src/url/hash.ts';
import { WireResponseError } from '../../../src/wire/wire-error.ts';
import { durationFromMs } from '../../../src/wire/duration.ts';
import type { WireEncoding } from '../../../src/wire/encoding.ts';
import type { RpcId, RpcResponse } from '../../../src/wire/rest/routes.ts';
import { decodeWireRequest, type DecodedWireRequest } from '../../../src/wire/rest/server-request.ts';
import { encodeWireResponse } from '../../../src/wire/rest/server-response.ts';
import { VERSION } from '../../../src/version.ts';

// ---------------------------------------------------------------------------------------------------
// A v4 server on loopback: requests decoded by the wire layer, answers from the current test's script.

type Answer = { [R in RpcId]: { rpc: R; message: RpcResponse<R> } }[RpcId] | { status: number; body: string };

interface Received {
  call: DecodedWireRequest;
  method: string;
  url: string;
  contentType: string | undefined;
  userAgent: string | undefined;
}

let server: Server;
let serverUrl: string;
let received: Received[] = [];
let answer: (call: DecodedWireRequest) => Answer = () => ({ status: 500, body: 'no answer scripted' });

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const call = decodeWireRequest({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks),
        });
        received.push({
          call,
          method: req.method ?? '',
          url: req.url ?? '',
          contentType: req.headers['content-type'],
          userAgent: req.headers['user-agent'],
        });
        const scripted = answer(call);
        if ('status' in scripted) {
          res.writeHead(scripted.status, { 'content-type': 'application/json' }).end(scripted.body);
          return;
        }
        const payload = encodeWireResponse(scripted.rpc, scripted.message as never, call.responseEncoding);
        res.writeHead(200, { 'content-type': payload.contentType }).end(payload.body);
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  received = [];
  answer = () => ({ status: 500, body: 'no answer scripted' });
});

function settings(encoding: WireEncoding = 'protobuf'): ServerSettings {
  return {
    serverUrl,
    apiKey: 'test-key',
    encoding,
    userAgent: 'sbkit-test/1',
    timeoutMs: 5_000,
    maxResponseBytes: 1 << 20,
    sizeConstraints: { maxUpdateEntries: 2048, maxDatabaseEntries: 4096 },
    maxListEntries: 1000,
  };
}

// ---------------------------------------------------------------------------------------------------
// Building answers.

const bytes = (text: string) => new TextEncoder().encode(text);
const hex = (data: Uint8Array | undefined) => (data === undefined ? undefined : Buffer.from(data).toString('hex'));
const state = (name: string, version = '', width: 4 | 32 = 4): ListState => ({ name, version: bytes(version), width });

const raw = (prefixes: Uint32Array, prefixSize = 4): ThreatEntrySet =>
  create(ThreatEntrySetSchema, { compressionType: CompressionType.RAW, rawHashes: { prefixSize, rawHashes: prefixesToBytes(prefixes) } });
const rice = (prefixes: Uint32Array): ThreatEntrySet =>
  create(ThreatEntrySetSchema, { compressionType: CompressionType.RICE, riceHashes: encodeV4RiceHashes(prefixes) });
const rawIndices = (indices: number[]): ThreatEntrySet =>
  create(ThreatEntrySetSchema, { compressionType: CompressionType.RAW, rawIndices: { indices } });
const riceIndices = (indices: number[]): ThreatEntrySet =>
  create(ThreatEntrySetSchema, { compressionType: CompressionType.RICE, riceIndices: encodeV4RiceIndices(Uint32Array.from(indices)) });

interface ListAnswer {
  partial?: boolean;
  additions?: ThreatEntrySet[];
  removals?: ThreatEntrySet[];
  newState?: string;
  /** The list after the update, for the checksum; none sent when absent. */
  after?: Uint32Array;
  threatType?: ThreatType;
}

function listAnswer(name: string, options: ListAnswer = {}): ListUpdateResponse {
  const list = v4ListOf(name);
  return create(ListUpdateResponseSchema, {
    threatType: options.threatType ?? list.threatType,
    platformType: list.platformType,
    threatEntryType: list.threatEntryType,
    responseType: options.partial === true ? ResponseType.PARTIAL_UPDATE : ResponseType.FULL_UPDATE,
    additions: options.additions ?? [],
    removals: options.removals ?? [],
    newClientState: bytes(options.newState ?? `${name}-state-2`),
    ...(options.after === undefined ? {} : { checksum: { sha256: checksumOf({ width: 4, values: options.after }, nodeSha256) } }),
  });
}

function fetchAnswer(lists: ListUpdateResponse[], minimumWaitMs?: number): Answer {
  return {
    rpc: 'FetchThreatListUpdates',
    message: create(FetchThreatListUpdatesResponseSchema, {
      listUpdateResponses: lists,
      ...(minimumWaitMs === undefined ? {} : { minimumWaitDuration: durationFromMs(minimumWaitMs) }),
    }),
  };
}

function fetchRequest(index = 0): FetchThreatListUpdatesRequest {
  const call = received[index]?.call;
  assert.ok(call !== undefined && call.rpc === 'FetchThreatListUpdates', 'the server received a threatListUpdates:fetch');
  return call.request;
}

function findRequest(index = 0): FindFullHashesRequest {
  const call = received[index]?.call;
  assert.ok(call !== undefined && call.rpc === 'FindFullHashes', 'the server received a fullHashes:find');
  return call.request;
}

function updateOf(fetched: FetchedList | undefined): HashListUpdate {
  assert.ok(
    fetched !== undefined && 'update' in fetched,
    `expected an update, got ${fetched !== undefined && 'error' in fetched ? fetched.error.message : 'nothing'}`,
  );
  assert.equal(fetched.minimumWaitMs, undefined, 'v4 lists carry no wait of their own');
  return fetched.update;
}

function errorOf(fetched: FetchedList | undefined): Error {
  assert.ok(fetched !== undefined && 'error' in fetched, 'expected an error for the list');
  return fetched.error;
}

function assertListFailure(fetched: FetchedList | undefined, reason: string, pattern: RegExp): void {
  const error = errorOf(fetched);
  assert.ok(error instanceof V4ListUpdateError, `expected V4ListUpdateError, got ${error.name}: ${error.message}`);
  assert.equal(error.reason, reason);
  assert.equal(error.listName, fetched!.name);
  assert.match(error.message, pattern);
}

const P = Uint32Array.of(0x0000_0001, 0x0102_0304, 0x7f00_00ff, 0xa0b0_c0d0, 0xffff_fffe);
const Q = Uint32Array.of(0x1111_1111, 0x2222_2222, 0x3333_3333);

// ---------------------------------------------------------------------------------------------------

describe('V4Transport.fetchUpdates', { timeout: 20_000 }, () => {
  it('sends one binary threatListUpdates:fetch with a triple, state and constraints per list', async () => {
    answer = () =>
      fetchAnswer(
        [listAnswer('se-4b', { additions: [raw(P)], after: P }), listAnswer('mw-4b', { additions: [rice(Q)], after: Q })],
        1_800_000,
      );
    const transport = new V4Transport(settings());
    assert.equal(transport.protocol, 'v4');
    const response = await transport.fetchUpdates([state('se-4b'), state('mw-4b', 'mw-state-1')]);

    assert.equal(received.length, 1);
    const { call, method, url, contentType, userAgent } = received[0]!;
    assert.equal(method, 'POST');
    assert.match(url, /^\/v4\/threatListUpdates:fetch\?/);
    assert.match(url, /[?&]alt=proto(&|$)/);
    assert.equal(contentType, 'application/x-protobuf');
    assert.equal(call.responseEncoding, 'protobuf');
    assert.equal(call.apiKey, 'test-key');
    assert.equal(userAgent, 'sbkit-test/1');
    const request = fetchRequest();
    assert.equal(request.client?.clientId, 'sbkit');
    assert.equal(request.client?.clientVersion, VERSION);
    assert.deepEqual(
      request.listUpdateRequests.map((r) => ({
        threatType: r.threatType,
        platformType: r.platformType,
        threatEntryType: r.threatEntryType,
        state: Buffer.from(r.state).toString(),
        maxUpdateEntries: r.constraints?.maxUpdateEntries,
        maxDatabaseEntries: r.constraints?.maxDatabaseEntries,
        supportedCompressions: r.constraints?.supportedCompressions,
      })),
      [
        {
          threatType: ThreatType.SOCIAL_ENGINEERING,
          platformType: PlatformType.ANY_PLATFORM,
          threatEntryType: ThreatEntryType.URL,
          state: '',
          maxUpdateEntries: 2048,
          maxDatabaseEntries: 4096,
          supportedCompressions: [CompressionType.RAW, CompressionType.RICE],
        },
        {
          threatType: ThreatType.MALWARE,
          platformType: PlatformType.ANY_PLATFORM,
          threatEntryType: ThreatEntryType.URL,
          state: 'mw-state-1',
          maxUpdateEntries: 2048,
          maxDatabaseEntries: 4096,
          supportedCompressions: [CompressionType.RAW, CompressionType.RICE],
        },
      ],
    );

    assert.equal(response.minimumWaitMs, 1_800_000);
    assert.deepEqual(
      response.lists.map((l) => l.name),
      ['se-4b', 'mw-4b'],
    );
    const se = updateOf(response.lists[0]);
    assert.equal(se.partial, false);
    assert.equal(Buffer.from(se.version).toString(), 'se-4b-state-2');
    assert.deepEqual(se.removals, new Uint32Array(0));
    assert.deepEqual(se.additions, { width: 4, values: P });
    assert.equal(hex(se.checksum), hex(checksumOf({ width: 4, values: P }, nodeSha256)));
    const mw = updateOf(response.lists[1]);
    assert.deepEqual(mw.additions, { width: 4, values: Q });
    assert.equal(hex(mw.checksum), hex(checksumOf({ width: 4, values: Q }, nodeSha256)));
    // The store takes the updates as they are, checksum verified.
    assert.deepEqual(HashList.empty('se-4b', 4).applyUpdate(se, nodeSha256).sortedHashes(), { width: 4, values: P });
  });

  it('reads partial updates with Rice and RAW removal indices, sorted, and applies them', async () => {
    // uws-4b holds P and loses indices 1 and 3, gains Q (Rice); uwsa-4b holds P and loses 4, 0, 2 (RAW,
    // in no particular order), gains Q (RAW).
    const uwsAfter = Uint32Array.from([P[0]!, P[2]!, P[4]!, ...Q]).sort();
    const uwsaAfter = Uint32Array.from([P[1]!, P[3]!, ...Q]).sort();
    answer = () =>
      fetchAnswer([
        listAnswer('uws-4b', { partial: true, removals: [riceIndices([1, 3])], additions: [rice(Q)], after: uwsAfter }),
        listAnswer('uwsa-4b', { partial: true, removals: [rawIndices([4, 0, 2])], additions: [raw(Q)], after: uwsaAfter }),
      ]);
    const transport = new V4Transport(settings());
    const response = await transport.fetchUpdates([state('uws-4b', 'uws-1'), state('uwsa-4b', 'uwsa-1')]);
    assert.deepEqual(
      fetchRequest().listUpdateRequests.map((r) => [r.threatType, r.platformType, Buffer.from(r.state).toString()]),
      [
        [ThreatType.UNWANTED_SOFTWARE, PlatformType.ANY_PLATFORM, 'uws-1'],
        [ThreatType.UNWANTED_SOFTWARE, PlatformType.ANDROID, 'uwsa-1'],
      ],
    );
    assert.equal(response.minimumWaitMs, undefined, 'no minimum_wait_duration: update again at once (SB-12)');

    const uws = updateOf(response.lists[0]);
    assert.equal(uws.partial, true);
    assert.deepEqual(uws.removals, Uint32Array.of(1, 3));
    assert.deepEqual(uws.additions, { width: 4, values: Q });
    const uwsa = updateOf(response.lists[1]);
    assert.equal(uwsa.partial, true);
    assert.deepEqual(uwsa.removals, Uint32Array.of(0, 2, 4));

    const held = (name: string) =>
      HashList.fromSorted(name, bytes('1'), { width: 4, values: P }, checksumOf({ width: 4, values: P }, nodeSha256));
    assert.deepEqual(held('uws-4b').applyUpdate(uws, nodeSha256).sortedHashes(), { width: 4, values: uwsAfter });
    const applied = held('uwsa-4b').applyUpdate(uwsa, nodeSha256);
    assert.deepEqual(applied.sortedHashes(), { width: 4, values: uwsaAfter });
    assert.equal(Buffer.from(applied.version).toString(), 'uwsa-4b-state-2');
  });

  it('merges several 4-byte addition sets and passes no checksum when none was sent', async () => {
    answer = () => fetchAnswer([listAnswer('pha-4b', { additions: [raw(Q), rice(P)] })]);
    const response = await new V4Transport(settings()).fetchUpdates([state('pha-4b')]);
    const pha = updateOf(response.lists[0]);
    assert.deepEqual(pha.additions, { width: 4, values: Uint32Array.from([...P, ...Q]).sort() });
    assert.equal(pha.checksum, undefined);
  });

  it("matches answers by triple in any order, SOCIAL_ENGINEERING as the browsers' 5 included", async () => {
    const only = (value: number) => Uint32Array.of(value);
    answer = () =>
      fetchAnswer([
        listAnswer('pha-4b', { additions: [raw(only(3))] }),
        listAnswer('mw-4b', { additions: [raw(only(2))] }),
        listAnswer('se-4b', { additions: [raw(only(1))], threatType: ThreatType.SOCIAL_ENGINEERING_INTERNAL }),
      ]);
    const response = await new V4Transport(settings()).fetchUpdates([state('se-4b'), state('mw-4b'), state('pha-4b')]);
    assert.deepEqual(
      response.lists.map((l) => l.name),
      ['se-4b', 'mw-4b', 'pha-4b'],
    );
    assert.deepEqual(
      response.lists.map((l) => updateOf(l).additions),
      [
        { width: 4, values: only(1) },
        { width: 4, values: only(2) },
        { width: 4, values: only(3) },
      ],
    );
    assert.deepEqual(
      response.lists.map((l) => Buffer.from(updateOf(l).version).toString()),
      ['se-4b-state-2', 'mw-4b-state-2', 'pha-4b-state-2'],
    );
  });

  it('accepts the short aliases and reports them under the name asked', async () => {
    answer = () => fetchAnswer([listAnswer('se-4b', { additions: [raw(P)] })]);
    const response = await new V4Transport(settings()).fetchUpdates([state('se')]);
    assert.equal(fetchRequest().listUpdateRequests[0]?.threatType, ThreatType.SOCIAL_ENGINEERING);
    assert.equal(response.lists[0]?.name, 'se');
    assert.deepEqual(updateOf(response.lists[0]).additions, { width: 4, values: P });
  });

  it('gives a list with an empty new_client_state an error and keeps the others', async () => {
    answer = () =>
      fetchAnswer([listAnswer('se-4b', { additions: [raw(P)], newState: '' }), listAnswer('mw-4b', { additions: [raw(Q)] })], 60_000);
    const response = await new V4Transport(settings()).fetchUpdates([state('se-4b'), state('mw-4b')]);
    assertListFailure(response.lists[0], 'missing-state', /list "se-4b".*new_client_state is empty/);
    assert.deepEqual(updateOf(response.lists[1]).additions, { width: 4, values: Q });
    assert.equal(response.minimumWaitMs, 60_000);
  });

  it('refuses RAW prefixes of another size, naming the sizes', async () => {
    const wide = new Uint8Array(64).fill(7);
    const set32 = create(ThreatEntrySetSchema, { compressionType: CompressionType.RAW, rawHashes: { prefixSize: 32, rawHashes: wide } });
    answer = () =>
      fetchAnswer([
        listAnswer('se-4b', { additions: [set32] }),
        listAnswer('mw-4b', { additions: [raw(P), set32] }),
        listAnswer('uws-4b', { additions: [raw(Q)] }),
      ]);
    const response = await new V4Transport(settings()).fetchUpdates([state('se-4b'), state('mw-4b'), state('uws-4b')]);
    assertListFailure(response.lists[0], 'prefix-size', /the additions are 32-byte prefixes; the list holds 4-byte prefixes only/);
    assertListFailure(response.lists[1], 'prefix-size', /the additions mix prefixes of 4, 32 bytes/);
    assert.deepEqual(updateOf(response.lists[2]).additions, { width: 4, values: Q });
  });

  it('refuses malformed entry sets, unknown response types and corrupt Rice data, list by list', async () => {
    const ragged = create(ThreatEntrySetSchema, {
      compressionType: CompressionType.RAW,
      rawHashes: { prefixSize: 4, rawHashes: new Uint8Array(6) },
    });
    const both = create(ThreatEntrySetSchema, {
      compressionType: CompressionType.RICE,
      rawHashes: { prefixSize: 4, rawHashes: prefixesToBytes(P) },
      riceHashes: encodeV4RiceHashes(Q),
    });
    const corrupt = create(ThreatEntrySetSchema, {
      compressionType: CompressionType.RICE,
      riceHashes: { firstValue: 5n, riceParameter: 28, numEntries: 3, encodedData: new Uint8Array(1) },
    });
    const unspecified = listAnswer('pha-4b');
    unspecified.responseType = ResponseType.RESPONSE_TYPE_UNSPECIFIED;
    answer = () =>
      fetchAnswer([
        listAnswer('se-4b', { additions: [ragged] }),
        listAnswer('mw-4b', { additions: [both] }),
        listAnswer('uws-4b', { partial: true, removals: [rawIndices([2, -1])] }),
        listAnswer('uwsa-4b', { additions: [corrupt] }),
        unspecified,
      ]);
    const response = await new V4Transport(settings()).fetchUpdates(['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b'].map((n) => state(n)));
    assertListFailure(response.lists[0], 'malformed-entry-set', /6 bytes of raw_hashes/);
    assertListFailure(response.lists[1], 'malformed-entry-set', /both raw_hashes and rice_hashes/);
    assertListFailure(response.lists[2], 'malformed-entry-set', /negative index -1/);
    assert.ok(errorOf(response.lists[3]) instanceof RiceDecodeError);
    assertListFailure(response.lists[4], 'unknown-response-type', /response_type is 0/);
  });

  it('refuses, from the headers alone, sets announcing more entries than maxListEntries (ListTooLargeError)', async () => {
    // 1000 allowed: Rice sets announcing 1001 entries in a few bytes, raw prefixes and indices over it.
    const claim = { firstValue: 0n, riceParameter: 2, numEntries: 1000, encodedData: new Uint8Array(8) };
    answer = () =>
      fetchAnswer([
        listAnswer('se-4b', { additions: [create(ThreatEntrySetSchema, { compressionType: CompressionType.RICE, riceHashes: claim })] }),
        listAnswer('mw-4b', {
          additions: [raw(Uint32Array.from({ length: 600 }, (_, i) => i)), raw(Uint32Array.from({ length: 401 }, (_, i) => i))],
        }),
        listAnswer('uws-4b', { partial: true, removals: [rawIndices(Array.from({ length: 1001 }, (_, i) => i))] }),
        listAnswer('pha-4b', {
          additions: [raw(Uint32Array.from({ length: 1000 }, (_, i) => i))],
          after: Uint32Array.from({ length: 1000 }, (_, i) => i),
        }),
      ]);
    const response = await new V4Transport(settings()).fetchUpdates(['se-4b', 'mw-4b', 'uws-4b', 'pha-4b'].map((n) => state(n)));
    for (const fetched of response.lists.slice(0, 3)) {
      const error = errorOf(fetched);
      assert.ok(error instanceof ListTooLargeError, `${fetched.name}: ${error.message}`);
      assert.equal(error.entries, 1001);
      assert.equal(error.maxEntries, 1000);
    }
    assert.equal(updateOf(response.lists[3]).additions.width, 4);
  });

  it('gives a list without an answer, or with two, an error', async () => {
    answer = () => fetchAnswer([listAnswer('mw-4b', { additions: [raw(Q)] }), listAnswer('uws-4b'), listAnswer('uws-4b')]);
    const response = await new V4Transport(settings()).fetchUpdates([state('se-4b'), state('mw-4b'), state('uws-4b')]);
    assertListFailure(response.lists[0], 'missing-response', /no update for SOCIAL_ENGINEERING\/ANY_PLATFORM\/URL/);
    assert.deepEqual(updateOf(response.lists[1]).additions, { width: 4, values: Q });
    assertListFailure(response.lists[2], 'repeated-response', /2 updates for UNWANTED_SOFTWARE\/ANY_PLATFORM\/URL/);
  });

  it('fails the whole call when the server answers a list that was not asked for', async () => {
    answer = () => fetchAnswer([listAnswer('se-4b'), listAnswer('pha-4b')]);
    await assert.rejects(new V4Transport(settings()).fetchUpdates([state('se-4b')]), (err: unknown) => {
      assert.ok(err instanceof WireResponseError);
      assert.match(err.message, /POTENTIALLY_HARMFUL_APPLICATION\/ANDROID\/URL, which was not asked for/);
      return true;
    });
  });

  it('does not send lists v4 cannot serve, repeated lists or wider hashes, and reports each', async () => {
    answer = () => fetchAnswer([listAnswer('mw-4b', { additions: [raw(Q)] })]);
    const response = await new V4Transport(settings()).fetchUpdates([
      state('gc-32b', '', 32),
      state('mw-4b'),
      state('mw'),
      state('se-4b', '', 32),
    ]);
    assert.equal(fetchRequest().listUpdateRequests.length, 1);
    assert.deepEqual(
      response.lists.map((l) => l.name),
      ['gc-32b', 'mw-4b', 'mw', 'se-4b'],
    );
    const gc = errorOf(response.lists[0]);
    assert.ok(gc instanceof NoV4ListError);
    assert.match(gc.message, /"gc-32b" has no v4 equivalent/);
    assert.deepEqual(updateOf(response.lists[1]).additions, { width: 4, values: Q });
    assertListFailure(response.lists[2], 'repeated-list', /same v4 list as "mw-4b"/);
    assertListFailure(response.lists[3], 'not-four-bytes', /32-byte hashes/);
  });

  it('makes no request when no list has a v4 equivalent', async () => {
    const response = await new V4Transport(settings()).fetchUpdates([state('gc-32b', '', 32)]);
    assert.equal(received.length, 0);
    assert.equal(response.minimumWaitMs, undefined);
    assert.ok(errorOf(response.lists[0]) instanceof NoV4ListError);
  });

  it('rejects with WireResponseError on HTTP 503', async () => {
    answer = () => ({ status: 503, body: JSON.stringify({ error: { code: 503, message: 'under high load', status: 'UNAVAILABLE' } }) });
    await assert.rejects(new V4Transport(settings()).fetchUpdates([state('se-4b')]), (err: unknown) => {
      assert.ok(err instanceof WireResponseError);
      assert.equal(err.kind, 'error-status');
      assert.equal(err.httpStatus, 503);
      assert.equal(err.status, 'UNAVAILABLE');
      return true;
    });
  });

  it('speaks proto3 JSON when the encoding is json', async () => {
    answer = () => fetchAnswer([listAnswer('se-4b', { partial: true, removals: [riceIndices([0, 7, 9])], additions: [rice(P)] })], 1_500);
    const response = await new V4Transport(settings('json')).fetchUpdates([state('se-4b', 'se-1')]);
    const { call, url, contentType } = received[0]!;
    assert.match(url, /[?&]alt=json(&|$)/);
    assert.match(contentType ?? '', /^application\/json/);
    assert.equal(call.responseEncoding, 'json');
    assert.equal(Buffer.from(fetchRequest().listUpdateRequests[0]!.state).toString(), 'se-1');
    assert.equal(response.minimumWaitMs, 1_500);
    const se = updateOf(response.lists[0]);
    assert.deepEqual(se.removals, Uint32Array.of(0, 7, 9));
    assert.deepEqual(se.additions, { width: 4, values: P });
  });
});

// ---------------------------------------------------------------------------------------------------

const BAD = 'malware.sbtest.example/';
const BAD_HASH = expressionHashString(BAD);
const OTHER_HASH = expressionHashString('phishing.sbtest.example/');

function match(fullHash: string | Uint8Array, threatType: number, cacheMs?: number): ThreatMatch {
  return create(ThreatMatchSchema, {
    threatType,
    platformType: PlatformType.ANY_PLATFORM,
    threatEntryType: ThreatEntryType.URL,
    threat: { hash: typeof fullHash === 'string' ? Buffer.from(fullHash, 'latin1') : fullHash },
    ...(cacheMs === undefined ? {} : { cacheDuration: durationFromMs(cacheMs) }),
  });
}

function findAnswer(matches: ThreatMatch[], durations: { negativeMs?: number; minimumWaitMs?: number } = {}): Answer {
  return {
    rpc: 'FindFullHashes',
    message: create(FindFullHashesResponseSchema, {
      matches,
      ...(durations.negativeMs === undefined ? {} : { negativeCacheDuration: durationFromMs(durations.negativeMs) }),
      ...(durations.minimumWaitMs === undefined ? {} : { minimumWaitDuration: durationFromMs(durations.minimumWaitMs) }),
    }),
  };
}

describe('V4Transport.search', { timeout: 20_000 }, () => {
  it("sends fullHashes:find with client, known states, the lists' threat info and the prefixes", async () => {
    const transport = new V4Transport(settings(), ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b']);
    answer = () => fetchAnswer([listAnswer('se-4b'), listAnswer('mw-4b'), listAnswer('pha-4b')]);
    // The states the client holds; mw-4b has none yet, uws-4b and uwsa-4b were never mentioned.
    await transport.fetchUpdates([state('se-4b', 'se-old'), state('mw-4b'), state('pha-4b', 'pha-old')]);
    answer = () => findAnswer([]);
    const prefixes = [prefix32(BAD_HASH), 0x0000_0001, 0xffff_ffff];
    const result = await transport.search(prefixes, [state('se-4b', 'se-held'), state('mw-4b'), state('pha-4b', 'pha-held')]);
    assert.deepEqual([result.fullHashes, result.serverFullHashCount], [[], 0]);

    assert.equal(received.length, 2);
    const { method, url, contentType } = received[1]!;
    assert.equal(method, 'POST');
    assert.match(url, /^\/v4\/fullHashes:find\?/);
    assert.match(url, /[?&]alt=proto(&|$)/);
    assert.equal(contentType, 'application/x-protobuf');
    const request = findRequest(1);
    assert.equal(request.client?.clientId, 'sbkit');
    assert.equal(request.client?.clientVersion, VERSION);
    assert.deepEqual(
      request.clientStates.map((s) => Buffer.from(s).toString()),
      ['se-held', 'pha-held'],
    );
    const info = request.threatInfo;
    assert.ok(info !== undefined);
    assert.deepEqual(info.threatTypes, [
      ThreatType.SOCIAL_ENGINEERING,
      ThreatType.MALWARE,
      ThreatType.UNWANTED_SOFTWARE,
      ThreatType.POTENTIALLY_HARMFUL_APPLICATION,
    ]);
    assert.deepEqual(info.platformTypes, [PlatformType.ANY_PLATFORM, PlatformType.ANDROID]);
    assert.deepEqual(info.threatEntryTypes, [ThreatEntryType.URL]);
    assert.deepEqual(
      info.threatEntries.map((e) => hex(e.hash)),
      [hex(Buffer.from(BAD_HASH, 'latin1').subarray(0, 4)), '00000001', 'ffffffff'],
    );
  });

  it('asks only about the configured lists, and about all of them when none are configured', async () => {
    answer = () => findAnswer([]);
    await new V4Transport(settings(), ['mw', 'mw-4b']).search([1], []);
    await new V4Transport(settings(), []).search([1], []);
    await new V4Transport(settings()).search([1], []);
    const info = (i: number) => findRequest(i).threatInfo!;
    assert.deepEqual([info(0).threatTypes, info(0).platformTypes], [[ThreatType.MALWARE], [PlatformType.ANY_PLATFORM]]);
    assert.deepEqual(findRequest(0).clientStates, []);
    for (const i of [1, 2]) {
      assert.deepEqual(info(i).threatTypes, [
        ThreatType.SOCIAL_ENGINEERING,
        ThreatType.MALWARE,
        ThreatType.UNWANTED_SOFTWARE,
        ThreatType.POTENTIALLY_HARMFUL_APPLICATION,
      ]);
      assert.deepEqual(info(i).platformTypes, [PlatformType.ANY_PLATFORM, PlatformType.ANDROID]);
    }
  });

  it('refuses at construction a list v4 never had', () => {
    assert.throws(() => new V4Transport(settings(), ['se-4b', 'gc-32b']), NoV4ListError);
  });

  it('merges matches of one hash, ignores short hashes and unknown threat types, and reads the durations', async () => {
    answer = () =>
      findAnswer(
        [
          match(BAD_HASH, ThreatType.MALWARE, 600_000),
          match(Buffer.from(OTHER_HASH, 'latin1').subarray(0, 16), ThreatType.MALWARE, 600_000),
          match(BAD_HASH, ThreatType.SOCIAL_ENGINEERING_INTERNAL, 300_000),
          match(OTHER_HASH, ThreatType.MALICIOUS_BINARY, 300_000),
          match(BAD_HASH, ThreatType.MALWARE, 900_000),
        ],
        { negativeMs: 120_000, minimumWaitMs: 60_000 },
      );
    const result = await new V4Transport(settings()).search([prefix32(BAD_HASH), prefix32(OTHER_HASH)], []);
    assert.deepEqual(result, {
      fullHashes: [
        {
          fullHash: BAD_HASH,
          details: [
            { threatType: 'MALWARE', attributes: [] },
            { threatType: 'SOCIAL_ENGINEERING', attributes: [] },
          ],
          cacheDurationMs: 300_000,
        },
      ],
      serverFullHashCount: 5,
      cacheDurationMs: 120_000,
      negativeCacheDurationMs: 120_000,
      minimumWaitMs: 60_000,
    });
  });

  it('cuts durations to a day: cache durations (SB-8) and the minimum wait (RF-3)', async () => {
    const years = 1000 * 86_400_000 * 365;
    answer = () => findAnswer([match(BAD_HASH, ThreatType.MALWARE, years)], { negativeMs: years, minimumWaitMs: years });
    const result = await new V4Transport(settings()).search([prefix32(BAD_HASH)], []);
    assert.equal(result.fullHashes[0]!.cacheDurationMs, 86_400_000);
    assert.equal(result.negativeCacheDurationMs, 86_400_000);
    assert.equal(result.minimumWaitMs, 86_400_000);
  });

  it('keeps the other threat types of a hash whose one match is unknown, and leaves absent durations out', async () => {
    answer = () => findAnswer([match(OTHER_HASH, 42), match(OTHER_HASH, ThreatType.SOCIAL_ENGINEERING)]);
    const result = await new V4Transport(settings()).search([prefix32(OTHER_HASH)], []);
    assert.deepEqual(result, {
      fullHashes: [{ fullHash: OTHER_HASH, details: [{ threatType: 'SOCIAL_ENGINEERING', attributes: [] }], cacheDurationMs: undefined }],
      serverFullHashCount: 2,
      cacheDurationMs: 0,
      negativeCacheDurationMs: undefined,
      minimumWaitMs: undefined,
    });
  });

  it('speaks proto3 JSON when the encoding is json', async () => {
    answer = () => findAnswer([match(BAD_HASH, ThreatType.UNWANTED_SOFTWARE, 3_500)], { negativeMs: 1_250, minimumWaitMs: 0 });
    const result = await new V4Transport(settings('json'), ['uws']).search([prefix32(BAD_HASH)], []);
    assert.match(received[0]!.url, /[?&]alt=json(&|$)/);
    assert.equal(received[0]!.call.responseEncoding, 'json');
    assert.deepEqual(
      findRequest().threatInfo?.threatEntries.map((e) => hex(e.hash)),
      [hex(Buffer.from(BAD_HASH, 'latin1').subarray(0, 4))],
    );
    assert.deepEqual(result.fullHashes, [
      { fullHash: BAD_HASH, details: [{ threatType: 'UNWANTED_SOFTWARE', attributes: [] }], cacheDurationMs: 3_500 },
    ]);
    assert.equal(result.negativeCacheDurationMs, 1_250);
    assert.equal(result.cacheDurationMs, 1_250);
    assert.equal(result.minimumWaitMs, 0);
  });

  it('rejects with WireResponseError on HTTP 503', async () => {
    answer = () => ({ status: 503, body: '' });
    await assert.rejects(
      new V4Transport(settings()).search([1], []),
      (err: unknown) => err instanceof WireResponseError && err.httpStatus === 503,
    );
  });
});
