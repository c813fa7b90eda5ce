import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { SearchHashesRequestSchema } from '../../../../src/proto/v5.ts';
import { cacheControlOf } from '../../../../src/server/api/answers/answer-caching.ts';
import { catalogFullHashes, type FullHashSource } from '../../../../src/server/api/full-hash-source.ts';
import { SearchAnswers } from '../../../../src/server/api/answers/search-answers.ts';
import { type ApiSettings, DEFAULT_API_SETTINGS } from '../../../../src/server/api/settings.ts';
import { searchHashes } from '../../../../src/server/api/v5.ts';
import { ListCatalog } from '../../../../src/server/catalog.ts';
import { ListHistory } from '../../../../src/server/lists/list-history.ts';
import type { WireEncoding } from '../../../../src/wire/encoding.ts';
import type { RpcCall } from '../../../../src/wire/rest/routes.ts';
import { encodeWireResponse } from '../../../../src/wire/rest/server-response.ts';
import { listChanges, playListChange } from '../fixtures.ts';

const fullHash = (n: number) => createHash('sha256').update(`entry ${n}`).digest();
/** Contents that share entries; entries 1 and 2 share their first four bytes in some of them. */
const twin = Buffer.concat([fullHash(1).subarray(0, 4), fullHash(2).subarray(4)]);
const CONTENTS = [[], [1, 2, 3], [2, 3, 4], [1, 4]].map((ns) => Buffer.concat(ns.map(fullHash)));
CONTENTS.push(Buffer.concat([fullHash(1), twin]));
const PREFIXES = [1, 2, 3, 4, 5].map((n) => fullHash(n).subarray(0, 4));
const ENCODINGS: WireEncoding[] = ['protobuf', 'json'];

function catalog(): ListCatalog {
  const list = (name: string, threatTypes: ['SOCIAL_ENGINEERING'] | ['MALWARE']) =>
    new ListHistory({ name, hashLength: 4, threatTypes, likelySafeTypes: [], description: '' }, { keep: 3 });
  return new ListCatalog([list('se-4b', ['SOCIAL_ENGINEERING']), list('mw-4b', ['MALWARE'])]);
}

const search = (prefixes: Uint8Array[], filter = ''): RpcCall => ({
  rpc: 'SearchHashes',
  apiVersion: 'v5',
  request: create(SearchHashesRequestSchema, { hashPrefixes: prefixes, filter }),
});

/** What the server answered before answers were kept: worked out and encoded afresh. */
async function fresh(lists: ListCatalog, settings: ApiSettings, call: RpcCall, encoding: WireEncoding) {
  if (call.rpc !== 'SearchHashes') throw new Error('a search');
  const message = await searchHashes(catalogFullHashes(lists, settings), call.request);
  return {
    payload: encodeWireResponse('SearchHashes', message, encoding),
    cacheControl: cacheControlOf('SearchHashes', message, settings),
  };
}

describe('SearchAnswers', () => {
  it('answers every search as a fresh answer would, through publications, adoptions and changed durations', async () => {
    const steps = fc.array(
      fc.oneof(
        ...listChanges(['se-4b', 'mw-4b'], CONTENTS.length),
        fc.record({ negativeSeconds: fc.constantFrom(10, 30, 300) }),
        fc.record({ positiveSeconds: fc.constantFrom(60, 300) }),
      ),
      { maxLength: 10 },
    );
    await fc.assert(
      fc.asyncProperty(steps, async (played) => {
        const lists = catalog();
        // Settings change in place, as a reload changes them.
        const settings: ApiSettings = { ...DEFAULT_API_SETTINGS };
        const answers = new SearchAnswers(lists, catalogFullHashes(lists, settings), settings);
        const check = async () => {
          const calls = [
            ...PREFIXES.map((p) => search([p])),
            search(PREFIXES.slice(0, 3)),
            search([PREFIXES[0]!], 'threat_type == ThreatType.MALWARE'),
          ];
          // Each call twice in each encoding: the second time from what was kept, when it is kept.
          for (const encoding of ENCODINGS) {
            for (const call of [...calls, ...calls])
              assert.deepEqual(answers.answer(call, encoding), await fresh(lists, settings, call, encoding));
          }
        };
        await check();
        for (const step of played) {
          if ('negativeSeconds' in step) settings.negativeCacheDurationMs = step.negativeSeconds * 1000;
          else if ('positiveSeconds' in step) settings.positiveCacheDurationMs = step.positiveSeconds * 1000;
          else playListChange(lists, catalog, step, CONTENTS);
          await check();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('hands the same bytes to every client searching a prefix between two publications', () => {
    const lists = catalog();
    lists.get('se-4b')!.publish(CONTENTS[1]!);
    const answers = new SearchAnswers(lists, catalogFullHashes(lists, DEFAULT_API_SETTINGS), DEFAULT_API_SETTINGS);
    const first = answers.answer(search([PREFIXES[0]!]), 'protobuf');
    assert.equal(answers.answer(search([PREFIXES[0]!]), 'protobuf'), first);
    lists.get('se-4b')!.publish(CONTENTS[2]!);
    assert.notEqual(answers.answer(search([PREFIXES[0]!]), 'protobuf'), first);
  });

  it('leaves a proxy’s searches, which go upstream, and other calls to the general path', () => {
    const lists = catalog();
    const own = catalogFullHashes(lists, DEFAULT_API_SETTINGS);
    const upstream: FullHashSource = { find: (prefixes) => own.find(prefixes) };
    assert.equal(new SearchAnswers(lists, upstream, DEFAULT_API_SETTINGS).answer(search([PREFIXES[0]!]), 'protobuf'), undefined);
    const call = { rpc: 'ListHashLists', apiVersion: 'v5', request: {} } as unknown as RpcCall;
    assert.equal(new SearchAnswers(lists, own, DEFAULT_API_SETTINGS).answer(call, 'protobuf'), undefined);
  });
});
