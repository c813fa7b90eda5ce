import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import * as v5 from '../../../src/proto/v5.ts';
import * as webrisk from '../../../src/proto/webrisk.ts';
import { parseQueryString } from '../../../src/wire/rest/query-string.ts';
import { applyQueryParameters, queryParametersOf } from '../../../src/wire/rest/transcoding.ts';
import { WireError } from '../../../src/wire/wire-error.ts';

const invalidArgument = (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT';

function batchGetFrom(query: string): v5.BatchGetHashListsRequest {
  const message = create(v5.BatchGetHashListsRequestSchema);
  applyQueryParameters(v5.BatchGetHashListsRequestSchema, message, parseQueryString(query));
  return message;
}

describe('applyQueryParameters', () => {
  it('binds repeated parameters in order, keeping empty positional versions (Firefox)', () => {
    const request = batchGetFrom('names=se-4b&names=mw-4b&names=uws-4b&version=&version=djE%3D&version=');
    assert.deepEqual(request.names, ['se-4b', 'mw-4b', 'uws-4b']);
    assert.deepEqual(request.version, [new Uint8Array(), new Uint8Array([0x76, 0x31]), new Uint8Array()]);
  });

  it('binds nested fields by JSON or proto name', () => {
    const json = batchGetFrom('names=se&sizeConstraints.maxUpdateEntries=1024&sizeConstraints.maxDatabaseEntries=65536');
    assert.equal(json.sizeConstraints?.maxUpdateEntries, 1024);
    assert.equal(json.sizeConstraints?.maxDatabaseEntries, 65536);
    const proto = batchGetFrom('names=se&size_constraints.max_update_entries=2048');
    assert.equal(proto.sizeConstraints?.maxUpdateEntries, 2048);
  });

  it('reads bytes in either base64 alphabet, and a raw + that the query turned into a space', () => {
    const request = batchGetFrom('version=-_-_&version=%2B%2F%2B%2F&version=+/+/');
    const expected = new Uint8Array([0xfb, 0xff, 0xbf]);
    assert.deepEqual(request.version, [expected, expected, expected]);
  });

  it('skips parameters that name no field (system parameters, client extras)', () => {
    const request = batchGetFrom('key=K&alt=proto&prettyPrint=false&names=se&sizeConstraints.unknown=1');
    assert.deepEqual(request.names, ['se']);
    assert.equal(request.sizeConstraints, undefined);
  });

  it('refuses a singular field given twice, under either name', () => {
    assert.throws(() => batchGetFrom('sizeConstraints.maxUpdateEntries=1&sizeConstraints.maxUpdateEntries=2'), invalidArgument);
    assert.throws(() => batchGetFrom('sizeConstraints.maxUpdateEntries=1&size_constraints.max_update_entries=2'), invalidArgument);
  });

  it('refuses values that do not parse, naming the parameter', () => {
    assert.throws(() => batchGetFrom('version=djE%3D&version=!'), /version\[1\] is not valid base64/);
    for (const value of ['ten', '1.5', '', '2147483648', '-2147483649', '1e3', '0x10', '99999999999']) {
      assert.throws(
        () => batchGetFrom(`sizeConstraints.maxUpdateEntries=${value}`),
        /sizeConstraints\.maxUpdateEntries must be a whole number/,
        value,
      );
    }
    assert.equal(batchGetFrom('sizeConstraints.maxUpdateEntries=-5').sizeConstraints?.maxUpdateEntries, -5);
    assert.equal(batchGetFrom('sizeConstraints.maxUpdateEntries=%2B7').sizeConstraints?.maxUpdateEntries, 7);
  });

  it('refuses parameters that name a field a query cannot set', () => {
    assert.throws(() => batchGetFrom('sizeConstraints=1'), invalidArgument);
    assert.throws(() => batchGetFrom('names.x=1'), invalidArgument);
    const list = create(v5.HashListSchema);
    assert.throws(() => applyQueryParameters(v5.HashListSchema, list, [{ name: 'partialUpdate', value: 'true' }]), invalidArgument);
  });

  it('property: arbitrary queries bind or raise INVALID_ARGUMENT', () => {
    const name = fc.constantFrom(
      'names',
      'version',
      'sizeConstraints',
      'sizeConstraints.maxUpdateEntries',
      'size_constraints.max_database_entries',
      'names.x',
      'x',
    );
    const parameter = fc.record({ name, value: fc.string() });
    fc.assert(
      fc.property(fc.array(parameter, { maxLength: 6 }), (parameters) => {
        try {
          applyQueryParameters(v5.BatchGetHashListsRequestSchema, create(v5.BatchGetHashListsRequestSchema), parameters);
        } catch (error) {
          assert.ok(invalidArgument(error), String(error));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('queryParametersOf', () => {
  it('writes set fields in declaration order, bytes as base64url, empty versions kept', () => {
    const request = create(v5.BatchGetHashListsRequestSchema, {
      names: ['se-4b', 'mw-4b'],
      version: [new Uint8Array(), new Uint8Array([0xfb, 0xff])],
      sizeConstraints: { maxUpdateEntries: 1024 },
    });
    assert.deepEqual(queryParametersOf(v5.BatchGetHashListsRequestSchema, request), [
      { name: 'names', value: 'se-4b' },
      { name: 'names', value: 'mw-4b' },
      { name: 'version', value: '' },
      { name: 'version', value: '-_8' },
      { name: 'sizeConstraints.maxUpdateEntries', value: '1024' },
    ]);
  });

  it('writes nothing for an empty message', () => {
    assert.deepEqual(queryParametersOf(v5.ListHashListsRequestSchema, create(v5.ListHashListsRequestSchema)), []);
  });

  it('refuses fields a query cannot carry', () => {
    const list = create(v5.HashListSchema, { partialUpdate: true });
    assert.throws(() => queryParametersOf(v5.HashListSchema, list), TypeError);
  });

  it('property: applyQueryParameters inverts it', () => {
    const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    const request = fc.record({
      names: fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 5 }),
      version: fc.array(fc.uint8Array({ maxLength: 12 }), { maxLength: 5 }),
      sizeConstraints: fc.option(fc.record({ maxUpdateEntries: int32, maxDatabaseEntries: int32 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(request, (init) => {
        const original = create(v5.BatchGetHashListsRequestSchema, init);
        const parameters = queryParametersOf(v5.BatchGetHashListsRequestSchema, original);
        const copy = create(v5.BatchGetHashListsRequestSchema);
        applyQueryParameters(v5.BatchGetHashListsRequestSchema, copy, parameters);
        assert.deepEqual(copy.names, original.names);
        assert.deepEqual(copy.version, original.version);
        assert.equal(copy.sizeConstraints?.maxUpdateEntries ?? 0, original.sizeConstraints?.maxUpdateEntries ?? 0);
        assert.equal(copy.sizeConstraints?.maxDatabaseEntries ?? 0, original.sizeConstraints?.maxDatabaseEntries ?? 0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('applyQueryParameters: enums', () => {
  it('binds an enum by name or number, singular and repeated, and queryParametersOf gives them back by number', () => {
    const message = create(webrisk.ComputeThreatListDiffRequestSchema);
    applyQueryParameters(webrisk.ComputeThreatListDiffRequestSchema, message, [
      { name: 'threatType', value: 'SOCIAL_ENGINEERING' },
      { name: 'constraints.supportedCompressions', value: 'RICE' },
      { name: 'constraints.supportedCompressions', value: '1' },
    ]);
    assert.equal(message.threatType, webrisk.ThreatType.SOCIAL_ENGINEERING);
    assert.deepEqual(message.constraints?.supportedCompressions, [webrisk.CompressionType.RICE, webrisk.CompressionType.RAW]);
    assert.deepEqual(queryParametersOf(webrisk.ComputeThreatListDiffRequestSchema, message), [
      { name: 'threatType', value: '2' },
      { name: 'constraints.supportedCompressions', value: '2' },
      { name: 'constraints.supportedCompressions', value: '1' },
    ]);
  });

  it('keeps a number the enum does not name (open enums) and refuses a name it does not have', () => {
    const message = create(webrisk.SearchUrisRequestSchema);
    applyQueryParameters(webrisk.SearchUrisRequestSchema, message, [{ name: 'threatTypes', value: '42' }]);
    assert.deepEqual(message.threatTypes, [42]);
    assert.throws(
      () => applyQueryParameters(webrisk.SearchUrisRequestSchema, message, [{ name: 'threatTypes', value: 'PHISHING' }]),
      (error: unknown) => error instanceof WireError && error.status === 'INVALID_ARGUMENT' && error.message.includes('threatTypes[1]'),
    );
  });

  it('property: any enum value round-trips through the query by number', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 5 }), (threatTypes) => {
        const message = create(webrisk.SearchUrisRequestSchema, { threatTypes });
        const back = create(webrisk.SearchUrisRequestSchema);
        applyQueryParameters(webrisk.SearchUrisRequestSchema, back, queryParametersOf(webrisk.SearchUrisRequestSchema, message));
        assert.deepEqual(back.threatTypes, threatTypes);
      }),
    );
  });
});
