import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { base64ByteLength, decodeBase64, decodeBase64Into, encodeBase64Url } from '../../src/wire/base64.ts';
import { parseQueryString } from '../../src/wire/rest/query-string.ts';
import { WireError } from '../../src/wire/wire-error.ts';

const PREFIX = new Uint8Array([0xbf, 0xd0, 0x0f, 0x8e]); // malware.sbtest.example/ (docs/api.md §3)

function isInvalidArgument(error: unknown): boolean {
  return error instanceof WireError && error.status === 'INVALID_ARGUMENT' && error.httpStatus === 400;
}

// Every way a client may write the same bytes.
function variants(data: Uint8Array): string[] {
  const standard = Buffer.from(data).toString('base64');
  const url = standard.replaceAll('+', '-').replaceAll('/', '_');
  return [standard, standard.replace(/=+$/, ''), url, url.replace(/=+$/, '')];
}

describe('decodeBase64', () => {
  it('reads the forms real clients send', () => {
    assert.deepEqual(decodeBase64('v9APjg==', 'p'), PREFIX); // Firefox: standard, padded
    assert.deepEqual(decodeBase64('v9APjg', 'p'), PREFIX); // SB-13 and our client: unpadded
    assert.deepEqual(decodeBase64('WwuJdQ', 'p'), new Uint8Array([0x5b, 0x0b, 0x89, 0x75])); // SB-13's example
    assert.deepEqual(decodeBase64('', 'p'), new Uint8Array());
  });

  it('reads both alphabets for the same bytes', () => {
    const data = new Uint8Array([0xfb, 0xff, 0xbf]);
    assert.deepEqual(decodeBase64('+/+/', 'p'), data);
    assert.deepEqual(decodeBase64('-_-_', 'p'), data);
  });

  it('returns a plain Uint8Array, not a Buffer', () => {
    assert.equal(Object.getPrototypeOf(decodeBase64('AAAA', 'p')), Uint8Array.prototype);
  });

  it('rejects characters outside both alphabets, naming the value and the offset', () => {
    for (const text of ['v9AP jg', 'v9AP.jg', 'v9APjg%3D', 'ü', '\u0000AAA', 'AA\nAA']) {
      assert.throws(
        () => decodeBase64(text, 'hashPrefixes[0]'),
        (error: unknown) => {
          assert.ok(isInvalidArgument(error));
          assert.match((error as Error).message, /^hashPrefixes\[0\] is not valid base64: character .* at offset \d+/);
          return true;
        },
      );
    }
  });

  it('rejects misplaced padding and impossible lengths', () => {
    for (const text of ['v9=APjg', 'v9APjg===', '=', 'A', 'AAAAA', 'AAAAA==']) {
      assert.throws(() => decodeBase64(text, 'x'), isInvalidArgument, text);
    }
  });

  it('property: every variant of every byte string decodes back to it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (data) => {
        for (const text of variants(data)) assert.deepEqual(decodeBase64(text, 'x'), data);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: variants survive a query string, percent-encoded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (data) => {
        for (const text of variants(data)) {
          for (const raw of [encodeURIComponent(text), text]) {
            const [parameter] = parseQueryString(`v=${raw}`);
            // A raw `+` reads as a space in a query; the v5 decoders turn spaces back into `+`.
            assert.deepEqual(decodeBase64(parameter!.value.replaceAll(' ', '+'), 'v'), data);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('property: arbitrary text decodes or raises INVALID_ARGUMENT, nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom('A', 'z', '9', '+', '/', '-', '_', '=', ' ', '%') })), (text) => {
        try {
          decodeBase64(text, 'x');
        } catch (error) {
          assert.ok(isInvalidArgument(error), String(error));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

/** decodeBase64Into's reading of text[from, to), or undefined when it refuses it. */
function readInto(text: string, from: number, to: number): Uint8Array | undefined {
  const bytes = new Uint8Array(base64ByteLength(to - from));
  return decodeBase64Into(text, from, to, bytes) ? bytes : undefined;
}

describe('decodeBase64Into', () => {
  it('property: reads the unpadded variants of any bytes in place, inside any text, as Node’s decoder does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), (data, before, after) => {
        for (const text of variants(data).filter((variant) => !variant.endsWith('='))) {
          assert.deepEqual(readInto(`${before}${text}${after}`, before.length, before.length + text.length), data);
        }
      }),
      { numRuns: 2000 },
    );
    // Bits after the last whole byte are ignored, as Buffer ignores them.
    assert.deepEqual(readInto('v9APjh', 0, 6), new Uint8Array(Buffer.from('v9APjh', 'base64')));
  });

  it('refuses a character in neither alphabet and a lone last character', () => {
    for (const text of ['v9APj=', 'v9AP jg', 'v9APjü', '%3D', 'A', 'AAAAA', '\u0100AAA']) {
      assert.equal(readInto(text, 0, text.length), undefined, text);
    }
  });

  it('refuses bytes of another length than the characters stand for', () => {
    assert.throws(() => decodeBase64Into('v9APjg', 0, 6, new Uint8Array(3)), RangeError);
  });
});

describe('encodeBase64Url', () => {
  it('writes unpadded base64url, as SB-13 shows prefixes', () => {
    assert.equal(encodeBase64Url(PREFIX), 'v9APjg');
    assert.equal(encodeBase64Url(new Uint8Array([0xfb, 0xff, 0xbf])), '-_-_');
  });

  it('property: decodeBase64 inverts it, also for views into larger buffers', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(8), (data, offset) => {
        const padded = new Uint8Array(offset + data.length);
        padded.set(data, offset);
        const view = padded.subarray(offset);
        const text = encodeBase64Url(view);
        assert.match(text, /^[A-Za-z0-9_-]*$/);
        assert.deepEqual(decodeBase64(text, 'x'), data);
      }),
      { numRuns: 1000 },
    );
  });
});
