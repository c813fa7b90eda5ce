import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseResponseEncoding, contentTypeEncoding, encodingContentType } from '../../src/wire/encoding.ts';
import { WireError } from '../../src/wire/wire-error.ts';

describe('contentTypeEncoding', () => {
  it('recognizes JSON and the protobuf media types, with parameters and in any case', () => {
    assert.equal(contentTypeEncoding('application/json'), 'json');
    assert.equal(contentTypeEncoding('Application/JSON; charset=UTF-8'), 'json');
    assert.equal(contentTypeEncoding('application/x-protobuf'), 'protobuf');
    assert.equal(contentTypeEncoding('application/protobuf'), 'protobuf');
    assert.equal(contentTypeEncoding('application/octet-stream'), 'protobuf');
    assert.equal(contentTypeEncoding(' application/vnd.google.protobuf '), 'protobuf');
  });

  it('says nothing for absent or foreign types, JSPB included', () => {
    assert.equal(contentTypeEncoding(undefined), undefined);
    assert.equal(contentTypeEncoding(''), undefined);
    assert.equal(contentTypeEncoding('*/*'), undefined);
    assert.equal(contentTypeEncoding('text/plain'), undefined);
    assert.equal(contentTypeEncoding('application/json+protobuf'), undefined);
  });
});

describe('encodingContentType', () => {
  it('names the media type of each encoding', () => {
    assert.equal(encodingContentType('protobuf'), 'application/x-protobuf');
    assert.equal(encodingContentType('json'), 'application/json; charset=utf-8');
  });
});

describe('chooseResponseEncoding (docs/api.md §3 pitfall 1)', () => {
  it('browsers: no alt, Accept */* → protobuf', () => {
    assert.equal(chooseResponseEncoding({ accept: '*/*' }), 'protobuf');
    assert.equal(chooseResponseEncoding({}), 'protobuf');
  });

  it('alt and $alt decide first', () => {
    assert.equal(chooseResponseEncoding({ alt: 'json', contentType: 'application/x-protobuf' }), 'json');
    assert.equal(chooseResponseEncoding({ alt: 'proto', contentType: 'application/json', googleApiClient: true }), 'protobuf');
    assert.equal(chooseResponseEncoding({ alt: 'media' }), 'protobuf');
    assert.equal(chooseResponseEncoding({ alt: 'JSON;enum-encoding=int' }), 'json');
  });

  it('refuses an alt it does not know', () => {
    for (const alt of ['xml', '', 'json+protobuf']) {
      assert.throws(
        () => chooseResponseEncoding({ alt }),
        (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT',
        alt,
      );
    }
  });

  it('then $ct, the type of the $req envelope (Chromium, Firefox v4)', () => {
    assert.equal(chooseResponseEncoding({ envelopeContentType: 'application/x-protobuf', googleApiClient: true }), 'protobuf');
    assert.equal(chooseResponseEncoding({ envelopeContentType: 'application/json' }), 'json');
  });

  it('then the request Content-Type: JSON bodies get JSON (npm client), binary bodies protobuf (Go client)', () => {
    assert.equal(chooseResponseEncoding({ contentType: 'application/json' }), 'json');
    assert.equal(chooseResponseEncoding({ contentType: 'application/x-protobuf', accept: 'application/json' }), 'protobuf');
  });

  it('then an Accept header naming one of our types, in listed order', () => {
    assert.equal(chooseResponseEncoding({ accept: 'application/json' }), 'json');
    assert.equal(chooseResponseEncoding({ accept: 'text/html, application/x-protobuf;q=0.9, application/json' }), 'protobuf');
    assert.equal(chooseResponseEncoding({ accept: 'application/json, */*', googleApiClient: false }), 'json');
  });

  it("then x-goog-api-client: Google's generated clients read JSON (the npm client's v5 GETs)", () => {
    assert.equal(chooseResponseEncoding({ accept: '*/*', googleApiClient: true }), 'json');
  });
});
