import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import * as v4 from '../../../../src/proto/v4.ts';
import * as v5 from '../../../../src/proto/v5.ts';
import { createApp } from '../../../../src/server/http/app.ts';
import { answerCall } from '../../../../src/server/api/dispatch.ts';
import { encodedAnswers } from '../../../../src/server/api/answers/encoded-answers.ts';
import { DEFAULT_API_SETTINGS } from '../../../../src/server/api/settings.ts';
import { ListCatalog } from '../../../../src/server/catalog.ts';
import { ListHistory } from '../../../../src/server/lists/list-history.ts';
import { decodeWireRequest } from '../../../../src/wire/rest/server-request.ts';
import { encodeWireResponse } from '../../../../src/wire/rest/server-response.ts';
import { NO_CALLER, ownSource } from '../fixtures.ts';
import { FakeClock } from '../../../support/fake-clock.ts';

const payload = (bytes: number) => ({ contentType: 'application/x-protobuf', body: new Uint8Array(bytes) });

describe('encodedAnswers', () => {
  it('weighs an answer by its body and tag, and keeps 1024 answers or 64 MiB at most', () => {
    const answers = encodedAnswers();
    const kept = answers.keep('"a"', payload(10));
    assert.equal(answers.get('"a"'), kept);
    assert.equal(answers.byteLength, 10 + 3);
    assert.equal(answers.maxEntries, 1024);
    answers.keep('"whole"', payload(64 * 1024 * 1024 - 7));
    assert.equal(answers.size, 1, 'the oldest answer made room');
    answers.keep('"over"', payload(64 * 1024 * 1024 - 5));
    assert.equal(answers.get('"over"'), undefined, 'larger than the whole cache');
  });
});

const fullHash = (n: number) => createHash('sha256').update(`entry ${n}`).digest();
/** Contents that share entries, so that diffs have removals and additions. */
const CONTENTS = [[], [1, 2, 3], [2, 3, 4, 5, 6], [1, 5, 6, 7, 8, 9, 10]].map((ns) => Buffer.concat(ns.map(fullHash)));

function v4Request(state: Uint8Array): Uint8Array {
  const request = create(v4.FetchThreatListUpdatesRequestSchema, {
    listUpdateRequests: [
      {
        threatType: v4.ThreatType.SOCIAL_ENGINEERING,
        platformType: v4.PlatformType.ANY_PLATFORM,
        threatEntryType: v4.ThreatEntryType.URL,
        state,
        constraints: { supportedCompressions: [v4.CompressionType.RICE] },
      },
    ],
  });
  return toBinary(v4.FetchThreatListUpdatesRequestSchema, request);
}
const v4Query = (state: Uint8Array) => `$req=${Buffer.from(v4Request(state)).toString('base64url')}&$ct=application/x-protobuf`;

interface Asked {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** List requests as clients send them, with the versions answers gave out so far. */
function requests(versions: readonly Uint8Array[]): Asked[] {
  const version = (v: Uint8Array) => `version=${encodeURIComponent(Buffer.from(v).toString('base64'))}`;
  const out: Asked[] = [
    { method: 'GET', url: '/v5/hashList/se-4b' },
    { method: 'GET', url: '/v5/hashList/se-4b?alt=json' },
    { method: 'GET', url: '/v5/hashLists:batchGet?names=se-4b&names=gc-32b&names=mw-4b' },
    {
      method: 'GET',
      url: `/v4/threatListUpdates:fetch?${v4Query(new Uint8Array(0))}`,
      headers: { 'x-http-method-override': 'POST' },
    },
  ];
  for (const v of versions) {
    out.push({ method: 'GET', url: `/v5/hashList/se-4b?${version(v)}` });
    out.push({ method: 'GET', url: `/v5/hashList/se-4b?${version(v)}&sizeConstraints.maxUpdateEntries=2` });
    // The Go client's form: no tag is sent, but the encoded answer is kept all the same.
    out.push({
      method: 'POST',
      url: '/v4/threatListUpdates:fetch',
      headers: { 'content-type': 'application/x-protobuf' },
      body: v4Request(v),
    });
    out.push({ method: 'GET', url: `/v5/hashLists:batchGet?names=gc-32b&names=se-4b&${version(v)}&${version(v)}` });
    out.push({ method: 'GET', url: `/v5/hashLists:batchGet?names=se-4b&names=gc-32b&${version(v)}&alt=json` });
    out.push({
      method: 'GET',
      url: `/v4/threatListUpdates:fetch?${v4Query(v)}`,
      headers: { 'x-http-method-override': 'POST' },
    });
  }
  return out;
}

/** The versions a binary list answer gives out. */
function versionsIn(url: string, body: Uint8Array): Uint8Array[] {
  if (url.startsWith('/v5/hashList/')) return [fromBinary(v5.HashListSchema, body).version];
  if (url.startsWith('/v5/hashLists:batchGet')) return fromBinary(v5.BatchGetHashListsResponseSchema, body).hashLists.map((l) => l.version);
  return fromBinary(v4.FetchThreatListUpdatesResponseSchema, body).listUpdateResponses.map((l) => l.newClientState);
}

describe('list answers kept once encoded', () => {
  it('are byte for byte the answers built afresh, whatever was published and asked in between', async () => {
    let repeats = 0;
    const steps = fc.array(
      fc.oneof(
        fc.record({ publish: fc.constantFrom('se-4b', 'gc-32b'), content: fc.nat(CONTENTS.length - 1) }),
        fc.record({ ask: fc.nat(200), twice: fc.boolean() }),
      ),
      { minLength: 1, maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (script) => {
        const clock = new FakeClock();
        const list = (name: string, hashLength: 4 | 32) =>
          new ListHistory(
            { name, hashLength, threatTypes: hashLength === 4 ? ['SOCIAL_ENGINEERING'] : [], likelySafeTypes: [], description: '' },
            { keep: 3, clock },
          );
        const catalog = new ListCatalog([list('se-4b', 4), list('gc-32b', 32)]);
        const app = createApp({ catalog, clock });
        const seen = new Map<string, Uint8Array>();
        for (const step of script) {
          if ('publish' in step) {
            catalog.get(step.publish)!.publish(CONTENTS[step.content]!);
            continue;
          }
          const all = requests([...seen.values()]);
          const asked = all[step.ask % all.length]!;
          // Asked twice in a row, the second answer is the kept one.
          for (let time = 0; time < (step.twice ? 2 : 1); time++) {
            const headers = asked.headers ?? {};
            const body = asked.body ?? new Uint8Array(0);
            const answer = await app.inject({
              method: asked.method,
              url: asked.url,
              headers,
              ...(asked.body === undefined ? {} : { payload: Buffer.from(body) }),
            });
            assert.equal(answer.statusCode, 200, `${asked.method} ${asked.url}: ${answer.body}`);
            const call = decodeWireRequest({ method: asked.method, url: asked.url, headers, body });
            const fresh = encodeWireResponse(
              call.rpc,
              (await answerCall(catalog, ownSource(catalog), call, DEFAULT_API_SETTINGS, clock.now(), NO_CALLER)) as never,
              call.responseEncoding,
            );
            assert.equal(answer.rawPayload.toString('hex'), Buffer.from(fresh.body).toString('hex'), `${asked.method} ${asked.url}`);
            assert.equal(answer.headers['content-type'], fresh.contentType);
            if (time === 1) repeats++;
            if (call.responseEncoding === 'protobuf')
              for (const v of versionsIn(asked.url, answer.rawPayload)) seen.set(Buffer.from(v).toString('hex'), v);
          }
        }
        await app.close();
      }),
      { numRuns: 40 },
    );
    // The property would hold for a cache that never kept anything: answers must have been asked for again.
    assert.ok(repeats > 30, `only ${repeats} answers asked for twice`);
  });
});
