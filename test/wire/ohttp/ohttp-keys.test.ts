import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeKeyConfigs, type KeyConfig, parseKeyConfigs } from '../../../src/wire/ohttp/ohttp-keys.ts';
import { OhttpError } from '../../../src/wire/wire-error.ts';

// RFC 9458 Appendix A, the complete example of a request and response.
const A = JSON.parse(readFileSync(new URL('../fixtures/rfc9458-appendix-a.json', import.meta.url), 'utf8')) as Record<string, string>;
const hex = (name: string) => new Uint8Array(Buffer.from(A[name]!, 'hex'));

const keyConfig: fc.Arbitrary<KeyConfig> = fc.record({
  keyId: fc.integer({ min: 0, max: 255 }),
  kemId: fc.constant(0x0020),
  publicKey: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  suites: fc.array(
    fc.record({ kdfId: fc.integer({ min: 0, max: 0xffff }), aeadId: fc.integer({ min: 0, max: 0xffff }) }, { noNullPrototype: true }),
    { maxLength: 8 },
  ),
});

describe('Oblivious HTTP key configurations (application/ohttp-keys)', () => {
  it("reads RFC 9458's example configuration", () => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(hex('keyConfig').length);
    const [config] = parseKeyConfigs(Buffer.concat([length, hex('keyConfig')]));
    assert.equal(config!.keyId, 1);
    assert.deepEqual(Buffer.from(config!.publicKey), Buffer.from(hex('publicKey')));
    assert.deepEqual(config!.suites, [
      { kdfId: 1, aeadId: 1 },
      { kdfId: 1, aeadId: 3 },
    ]);
    assert.equal(Buffer.from(encodeKeyConfigs([config!])).toString('hex'), `${length.toString('hex')}${A.keyConfig}`);
  });

  it('reads back what it writes, and skips the configurations of other KEMs', () => {
    fc.assert(
      fc.property(fc.array(keyConfig, { maxLength: 4 }), (configs) => {
        const other = encodeKeyConfigs([{ keyId: 9, kemId: 0x0010, publicKey: new Uint8Array(65), suites: [] }]);
        const encoded = encodeKeyConfigs(configs);
        const parsed = parseKeyConfigs(Buffer.concat([other, encoded, other]));
        assert.deepEqual(
          parsed.map((c) => ({ ...c, publicKey: [...c.publicKey] })),
          configs.map((c) => ({ ...c, publicKey: [...c.publicKey] })),
        );
      }),
    );
  });

  it('refuses a configuration cut anywhere with an OhttpError, never anything else', () => {
    fc.assert(
      fc.property(keyConfig, fc.nat(), (config, cut) => {
        const encoded = encodeKeyConfigs([config]);
        assert.throws(() => parseKeyConfigs(encoded.subarray(0, 1 + (cut % (encoded.length - 1)))), OhttpError);
      }),
    );
  });
});
