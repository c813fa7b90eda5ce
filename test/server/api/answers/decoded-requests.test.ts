import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DecodedRequests } from '../../../../src/server/api/answers/decoded-requests.ts';
import { decodeWireRequest, type WireRequest } from '../../../../src/wire/rest/server-request.ts';
import { WireError } from '../../../../src/wire/wire-error.ts';

const EMPTY = new Uint8Array(0);
const batch = (query: string, headers: WireRequest['headers'] = {}): WireRequest => ({
  method: 'GET',
  url: `/v5/hashLists:batchGet?${query}`,
  headers,
  headerNamesLowerCase: true,
  body: EMPTY,
});
const FIREFOX = 'names=se-4b&names=mw-4b&version=AAAA&version=AQID&key=K';
const anyKey = { checkApiKey: () => undefined };

function refusal(decode: () => unknown): string {
  try {
    decode();
  } catch (err) {
    if (err instanceof WireError) return `${err.status} ${err.message}`;
    throw err;
  }
  return 'decoded';
}

describe('DecodedRequests', () => {
  it('hands the same decoded call to every client sending the same list GET, equal to a fresh decode', () => {
    const decoded = new DecodedRequests();
    const first = decoded.decode(batch(FIREFOX), anyKey);
    assert.equal(decoded.decode(batch(FIREFOX), anyKey), first);
    assert.deepEqual(first, decodeWireRequest(batch(FIREFOX), anyKey));
  });

  it('checks the API key of a remembered request every time', () => {
    const decoded = new DecodedRequests();
    const seen: (string | undefined)[] = [];
    decoded.decode(batch(FIREFOX), { checkApiKey: (key) => void seen.push(key) });
    const refuse = {
      checkApiKey: (key: string | undefined) => {
        throw new WireError('INVALID_ARGUMENT', `API key ${key} not valid`);
      },
    };
    assert.equal(
      refusal(() => decoded.decode(batch(FIREFOX), refuse)),
      'INVALID_ARGUMENT API key K not valid',
    );
    decoded.decode(batch(FIREFOX), { checkApiKey: (key) => void seen.push(key) });
    assert.deepEqual(seen, ['K', 'K']);
  });

  it('tells requests apart by every header the answer varies on', () => {
    const decoded = new DecodedRequests();
    const plain = decoded.decode(batch(FIREFOX), anyKey);
    for (const headers of [
      { accept: 'application/json' },
      { 'content-type': 'application/json' },
      { 'x-goog-api-client': 'gl-node/22' },
      { 'x-goog-api-key': 'other' },
      { 'x-http-method-override': 'POST' },
    ]) {
      const fresh = refusal(() => decodeWireRequest(batch(FIREFOX, headers), anyKey));
      if (fresh !== 'decoded') {
        assert.equal(
          refusal(() => decoded.decode(batch(FIREFOX, headers), anyKey)),
          fresh,
          JSON.stringify(headers),
        );
        continue;
      }
      const call = decoded.decode(batch(FIREFOX, headers), anyKey);
      assert.notEqual(call, plain, JSON.stringify(headers));
      assert.deepEqual(call, decodeWireRequest(batch(FIREFOX, headers), anyKey), JSON.stringify(headers));
    }
    assert.equal(decoded.decode(batch(FIREFOX, { accept: 'application/json' }), anyKey).responseEncoding, 'json');
    assert.equal(decoded.decode(batch(FIREFOX), anyKey).responseEncoding, 'protobuf');
  });

  it('remembers no search, no POST, no request that failed, and at most 256 requests', () => {
    const decoded = new DecodedRequests();
    const search: WireRequest = { method: 'GET', url: '/v5/hashes:search?hashPrefixes=AAAAAA%3D%3D', headers: {}, body: EMPTY };
    assert.notEqual(decoded.decode(search, anyKey), decoded.decode(search, anyKey));
    // Nor the searches whose URL names what someone browses: v5 urls:search, Web Risk's uris:search and hashes:search.
    for (const url of [
      '/v5/urls:search?urls=http%3A%2F%2Fsomeone.example%2F',
      '/v1/uris:search?uri=http%3A%2F%2Fsomeone.example%2F&threatTypes=MALWARE',
      '/v1/hashes:search?hashPrefix=AAAAAA%3D%3D&threatTypes=MALWARE',
    ]) {
      const request: WireRequest = { method: 'GET', url, headers: {}, headerNamesLowerCase: true, body: EMPTY };
      assert.notEqual(decoded.decode(request, anyKey), decoded.decode(request, anyKey), url);
    }
    const post: WireRequest = { ...batch(FIREFOX), method: 'POST' };
    assert.equal(
      refusal(() => decoded.decode(post, anyKey)),
      refusal(() => decodeWireRequest(post, anyKey)),
    );
    const bad = batch('names=se-4b&version=%%%');
    const error = refusal(() => decoded.decode(bad, anyKey));
    assert.notEqual(error, 'decoded');
    assert.equal(
      refusal(() => decoded.decode(bad, anyKey)),
      error,
    );

    const first = decoded.decode(batch(`${FIREFOX}&n=0`), anyKey);
    assert.equal(decoded.decode(batch(`${FIREFOX}&n=0`), anyKey), first);
    for (let n = 1; n <= 256; n++) decoded.decode(batch(`${FIREFOX}&n=${n}`), anyKey);
    const again = decoded.decode(batch(`${FIREFOX}&n=0`), anyKey);
    assert.notEqual(again, first, 'the oldest was pushed out');
    assert.deepEqual(again, first);
  });

  it('decodes header names in other cases in full, and does not keep them', () => {
    const decoded = new DecodedRequests();
    assert.equal(decoded.decode(batch(FIREFOX), anyKey).responseEncoding, 'protobuf');
    const request: WireRequest = { ...batch(FIREFOX, { Accept: 'application/json' }), headerNamesLowerCase: false };
    const call = decoded.decode(request, anyKey);
    assert.equal(call.responseEncoding, 'json');
    assert.notEqual(decoded.decode(request, anyKey), call);
  });
});
