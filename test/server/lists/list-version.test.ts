import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type ClientState, decodeVersion, encodeVersion } from '../../../src/server/lists/list-version.ts';

const servedState = fc.record(
  {
    snapshotId: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('hex')),
    limit: fc.nat({ max: 0xffffffff }),
  },
  { noNullPrototype: true },
);
const clientState: fc.Arbitrary<ClientState> = fc.oneof(
  fc.record({ kind: fc.constant('settled' as const), at: servedState }, { noNullPrototype: true }),
  fc.record(
    {
      kind: fc.constant('transfer' as const),
      from: fc.option(servedState, { nil: undefined }),
      to: servedState,
      progress: fc.nat({ max: 0xffffffff }),
    },
    { noNullPrototype: true },
  ),
);

describe('list versions', () => {
  it('decode to the state they were made from', () => {
    fc.assert(
      fc.property(clientState, (state) => {
        const version = encodeVersion(state);
        assert.ok(version.length > 0);
        assert.deepEqual(decodeVersion(version), state);
      }),
    );
  });

  it('of different states differ', () => {
    fc.assert(
      fc.property(clientState, clientState, (a, b) => {
        fc.pre(JSON.stringify(a) !== JSON.stringify(b));
        assert.notDeepEqual(Buffer.from(encodeVersion(a)), Buffer.from(encodeVersion(b)));
      }),
    );
  });

  it('are refused, never thrown on, when they are any other bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), (bytes) => {
        const state = decodeVersion(bytes);
        if (state !== undefined) assert.deepEqual(Buffer.from(encodeVersion(state)), Buffer.from(bytes));
      }),
    );
    fc.assert(
      fc.property(clientState, fc.integer({ min: -3, max: 3 }), (state, change) => {
        fc.pre(change !== 0);
        const version = Buffer.from(encodeVersion(state));
        const altered = change < 0 ? version.subarray(0, change) : Buffer.concat([version, Buffer.alloc(change)]);
        assert.equal(decodeVersion(altered), undefined);
      }),
    );
    assert.equal(decodeVersion(new Uint8Array(0)), undefined);
    assert.equal(decodeVersion(Buffer.from('v1')), undefined);
  });

  it('read a version inside a larger buffer', () => {
    const state: ClientState = { kind: 'settled', at: { snapshotId: 'ab'.repeat(16), limit: 7 } };
    const framed = Buffer.concat([Buffer.alloc(3), encodeVersion(state), Buffer.alloc(2)]);
    assert.deepEqual(decodeVersion(framed.subarray(3, framed.length - 2)), state);
  });
});
