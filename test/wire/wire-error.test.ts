import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WireError, renderWireError } from '../../src/wire/wire-error.ts';

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
      error: { code: 400, message: 'hashPrefixes is required', status: 'INVALID_ARGUMENT' },
    });
  });

  it('uses the overridden HTTP status as the code and sets Allow for 405', () => {
    const error = WireError.methodNotAllowed('POST', '/v5/hashLists', ['GET']);
    const rendered = renderWireError(error);
    assert.equal(rendered.httpStatus, 405);
    assert.equal(rendered.headers['allow'], 'GET');
    assert.deepEqual(bodyOf(error), { error: { code: 405, message: error.message, status: 'UNIMPLEMENTED' } });
  });

  it('escapes messages safely into JSON', () => {
    const error = new WireError('INVALID_ARGUMENT', 'name "a\\b" \u2028 </script>');
    assert.equal((bodyOf(error) as { error: { message: string } }).error.message, error.message);
  });
});
