import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readPlainSearch } from '../../../src/wire/protobuf/search-request-fast.ts';
import { decodeWireRequest, decodeWireRequestInFull, type WireRequest } from '../../../src/wire/rest/server-request.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

/** The outcome of decoding: the decoded request, or the error's status and message. */
function outcome(decode: () => unknown): unknown {
  try {
    return { decoded: decode() };
  } catch (err) {
    if (!(err instanceof WireError)) throw err;
    return { status: err.status, message: err.message };
  }
}

const prefixBytes = fc.uint8Array({ minLength: 4, maxLength: 4 });
// Prefixes as clients write them, and as they should not.
const prefixText = fc.oneof(
  prefixBytes.map((b) => Buffer.from(b).toString('base64')),
  prefixBytes.map((b) => encodeURIComponent(Buffer.from(b).toString('base64'))),
  prefixBytes.map((b) => Buffer.from(b).toString('base64url')),
  prefixBytes.map((b) => `${Buffer.from(b).toString('base64url')}==`),
  fc.uint8Array({ maxLength: 6 }).map((b) => Buffer.from(b).toString('base64')),
  fc.string({ maxLength: 10 }),
);
const segment = fc.oneof(
  { weight: 6, arbitrary: prefixText.map((p) => `hashPrefixes=${p}`) },
  { weight: 2, arbitrary: fc.constantFrom('key=K', 'key=AIzaSyA-_9', 'key=', 'key=a%20b') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'alt=json',
      'alt=proto',
      '$alt=json',
      'filter=x',
      'hash_prefixes=AAAAAA',
      'prettyPrint=false',
      '',
      '$req=CgQAAAAA',
      'hashPrefixes',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);
const path = fc.constantFrom(
  '/v5/hashes:search',
  '/v5alpha1/hashes:search',
  '/v4/hashes:search',
  '/v5/hashes:searc',
  '/v5/hashes%3Asearch',
  '/v5/hashLists:batchGet',
);
const headers = fc.record(
  {
    accept: fc.constantFrom('*/*', 'application/json', 'application/x-protobuf', 'text/html'),
    'content-type': fc.constantFrom('application/json', 'application/x-protobuf'),
    'x-goog-api-client': fc.constant('gl-node/20'),
    'x-goog-api-key': fc.constant('HEADER-KEY'),
    'x-http-method-override': fc.constantFrom('POST', 'GET', ''),
  },
  { requiredKeys: [] },
);
const request = fc.record({
  method: fc.constantFrom('GET', 'GET', 'POST', 'get'),
  url: fc.tuple(path, fc.array(segment, { minLength: 0, maxLength: 6 })).map(([p, s]) => `${p}?${s.join('&')}`),
  headers,
  body: fc.constantFrom(new Uint8Array(0), new Uint8Array([0x0a, 0x04, 1, 2, 3, 4])),
});

describe('the plain hashes:search shortcut', () => {
  it('decodes every request exactly as the general path does, errors included', () => {
    fc.assert(
      fc.property(request, (req: WireRequest) => {
        assert.deepEqual(
          outcome(() => decodeWireRequest(req)),
          outcome(() => decodeWireRequestInFull(req)),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("reads any six characters of a prefix as Node's base64 decoder does, the four bits past the last byte ignored", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{6}$/), (text) => {
        const read = readPlainSearch(`/v5/hashes:search?hashPrefixes=${text}`);
        assert.deepEqual(read?.request.hashPrefixes, [new Uint8Array(Buffer.from(text, 'base64'))]);
      }),
      { numRuns: 5000 },
    );
  });

  it('takes the forms Firefox and our client send', () => {
    assert.equal(readPlainSearch('/v5/hashes:search?key=K&hashPrefixes=v9APjg%3D%3D')?.request.hashPrefixes.length, 1);
    assert.deepEqual(
      [...readPlainSearch('/v5/hashes:search?hashPrefixes=WwuJdQ&hashPrefixes=AAAAAA')!.request.hashPrefixes[0]!],
      [0x5b, 0x0b, 0x89, 0x75],
    );
    assert.equal(readPlainSearch('/v5alpha1/hashes:search?hashPrefixes=WwuJdQ==&key=K')?.apiKey, 'K');
  });

  it('leaves everything else to the general path', () => {
    for (const url of [
      '/v5/hashes:search?hashPrefixes=WwuJdQ&alt=json',
      '/v5/hashes:search?key=K',
      '/v5/hashes:search?hashPrefixes=Ww%2BJdQ',
      '/v5/hashes:search?key=A&key=B&hashPrefixes=WwuJdQ',
      '/v5/hashLists:batchGet?names=se',
    ]) {
      assert.equal(readPlainSearch(url), undefined, url);
    }
  });
});
