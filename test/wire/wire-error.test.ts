import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { WireError, renderWireError } from '../../src/wire/wire-error.ts';
import { InvalidUrlError } from '../../src/url/invalid-url.ts';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/** The fields of a protobuf message, read with protobuf-es's reader: varints as numbers, the rest as bytes. */
function fields(bytes: Uint8Array): Map<number, number | Uint8Array> {
  const reader = new BinaryReader(bytes);
  const found = new Map<number, number | Uint8Array>();
  while (reader.pos < reader.len) {
    const [field, type] = reader.tag();
    found.set(field, type === WireType.Varint ? reader.int32() : reader.bytes());
  }
  return found;
}

function text(value: number | Uint8Array | undefined): string {
  assert.ok(value instanceof Uint8Array);
  return new TextDecoder().decode(value);
}

function bodyOf(error: WireError): unknown {
  return JSON.parse(new TextDecoder().decode(renderWireError(error).body));
}

describe('WireError', () => {
  it('takes the HTTP status of its canonical status', () => {
    assert.equal(new WireError('INVALID_ARGUMENT', 'x').httpStatus, 400);
    assert.equal(new WireError('NOT_FOUND', 'x').httpStatus, 404);
    assert.equal(new WireError('PERMISSION_DENIED', 'x').httpStatus, 403);
    assert.equal(new WireError('RESOURCE_EXHAUSTED', 'x').httpStatus, 429);
    assert.equal(new WireError('UNAVAILABLE', 'x').httpStatus, 503);
  });

  it('is an Error with its message and name', () => {
    const error = new WireError('INVALID_ARGUMENT', 'names is required');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'WireError');
    assert.equal(error.message, 'names is required');
  });

  it('methodNotAllowed: 405, UNIMPLEMENTED, with the allowed methods', () => {
    const error = WireError.methodNotAllowed('DELETE', '/v5/hashes:search', ['GET']);
    assert.equal(error.httpStatus, 405);
    assert.equal(error.status, 'UNIMPLEMENTED');
    assert.deepEqual(error.allow, ['GET']);
    assert.match(error.message, /\/v5\/hashes:search does not accept DELETE; use GET/);
  });

  it('payloadTooLarge: 413, RESOURCE_EXHAUSTED, saying the limit', () => {
    const error = WireError.payloadTooLarge('the request body', 2000, 1000);
    assert.equal(error.httpStatus, 413);
    assert.equal(error.status, 'RESOURCE_EXHAUSTED');
    assert.match(error.message, /2000 bytes; this server accepts at most 1000/);
  });
});

describe('renderWireError', () => {
  it("renders Google's JSON error body", () => {
    const rendered = renderWireError(new WireError('INVALID_ARGUMENT', 'hashPrefixes is required'));
    assert.equal(rendered.httpStatus, 400);
    assert.equal(rendered.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(rendered.headers['allow'], undefined);
    assert.deepEqual(bodyOf(new WireError('INVALID_ARGUMENT', 'hashPrefixes is required')), {
      error: {
        code: 400,
        message: 'hashPrefixes is required',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': ERROR_INFO, reason: 'SBKIT_WIRE_INVALID_ARGUMENT', domain: 'sbkit' }],
      },
    });
  });

  it('names the code of the failure behind the refusal as the reason, when there is one', () => {
    const cause = new InvalidUrlError('no-host', 'http:///x');
    const error = new WireError('INVALID_ARGUMENT', cause.message, { cause });
    assert.equal(error.code, 'SBKIT_WIRE_INVALID_ARGUMENT');
    assert.equal(error.cause, cause);
    assert.deepEqual((bodyOf(error) as { error: { details: unknown } }).error.details, [
      { '@type': ERROR_INFO, reason: cause.code, domain: 'sbkit' },
    ]);
  });

  it('renders google.rpc.Status in binary with the code as an ErrorInfo detail', () => {
    const rendered = renderWireError(new WireError('UNAVAILABLE', 'busy'), 'protobuf');
    assert.equal(rendered.httpStatus, 503);
    assert.equal(rendered.headers['content-type'], 'application/x-protobuf');
    // Status { code = 1; message = 2; details = 3 }, Any { type_url = 1; value = 2 }, ErrorInfo { reason = 1; domain = 2 }.
    const status = fields(rendered.body);
    assert.deepEqual([...status.keys()], [1, 2, 3]);
    assert.equal(status.get(1), 14);
    assert.equal(text(status.get(2)), 'busy');
    const any = fields(status.get(3) as Uint8Array);
    assert.equal(text(any.get(1)), ERROR_INFO);
    const info = fields(any.get(2) as Uint8Array);
    assert.deepEqual([text(info.get(1)), text(info.get(2))], ['SBKIT_WIRE_UNAVAILABLE', 'sbkit']);
  });

  it('uses the overridden HTTP status as the code and sets Allow for 405', () => {
    const error = WireError.methodNotAllowed('POST', '/v5/hashLists', ['GET']);
    const rendered = renderWireError(error);
    assert.equal(rendered.httpStatus, 405);
    assert.equal(rendered.headers['allow'], 'GET');
    assert.deepEqual(bodyOf(error), {
      error: {
        code: 405,
        message: error.message,
        status: 'UNIMPLEMENTED',
        details: [{ '@type': ERROR_INFO, reason: 'SBKIT_WIRE_UNIMPLEMENTED', domain: 'sbkit' }],
      },
    });
  });

  it('escapes messages safely into JSON', () => {
    const error = new WireError('INVALID_ARGUMENT', 'name "a\\b" \u2028 </script>');
    assert.equal((bodyOf(error) as { error: { message: string } }).error.message, error.message);
  });
});
