import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedSearchAnswer, MAX_FULL_HASHES_PER_PREFIX } from '../../src/client/search-answer-bounds.ts';
import type { FullHashMatch } from '../../src/lists/threat-details.ts';
import type { SearchResult } from '../../src/client/transport/transport.ts';
import { WireResponseError } from '../../src/wire/wire-error.ts';

/** A full hash under the 4-byte prefix `prefix`, told apart by `n`. */
function under(prefix: number, n: number, details: FullHashMatch['details'] = [{ threatType: 'MALWARE', attributes: [] }]): FullHashMatch {
  const bytes = Buffer.alloc(32);
  bytes.writeUInt32BE(prefix, 0);
  bytes.writeUInt32BE(n, 28);
  return { fullHash: bytes.toString('latin1'), details };
}

function answer(fullHashes: FullHashMatch[]): SearchResult {
  return { fullHashes, serverFullHashCount: fullHashes.length, cacheDurationMs: 60_000 };
}

describe('boundedSearchAnswer (S7)', () => {
  it('keeps full hashes under the prefixes asked about, and drops the rest', () => {
    const bounded = boundedSearchAnswer([1, 2], answer([under(1, 0), under(3, 0), under(2, 0)]));
    assert.deepEqual(
      bounded.fullHashes.map((match) => match.fullHash),
      [under(1, 0).fullHash, under(2, 0).fullHash],
    );
    assert.equal(bounded.serverFullHashCount, 3);
  });

  it('keeps a full hash given again once, its details merged and the shorter duration', () => {
    const phishing = { ...under(1, 0, [{ threatType: 'SOCIAL_ENGINEERING', attributes: ['CANARY'] }]), cacheDurationMs: 1000 };
    const repeated = Array.from({ length: 10_000 }, () => under(1, 0));
    const bounded = boundedSearchAnswer([1], answer([...repeated, phishing]));
    assert.deepEqual(bounded.fullHashes, [
      {
        fullHash: under(1, 0).fullHash,
        details: [
          { threatType: 'MALWARE', attributes: [] },
          { threatType: 'SOCIAL_ENGINEERING', attributes: ['CANARY'] },
        ],
        cacheDurationMs: 1000,
      },
    ]);
  });

  it(`takes ${MAX_FULL_HASHES_PER_PREFIX} full hashes under one prefix, and refuses the answer past that`, () => {
    const most = Array.from({ length: MAX_FULL_HASHES_PER_PREFIX }, (_, n) => under(0x975a8ef7, n));
    assert.equal(boundedSearchAnswer([0x975a8ef7], answer(most)).fullHashes.length, MAX_FULL_HASHES_PER_PREFIX);
    assert.throws(
      () => boundedSearchAnswer([0x975a8ef7], answer([...most, under(0x975a8ef7, 99)])),
      (error: unknown) =>
        error instanceof WireResponseError &&
        error.kind === 'malformed-body' &&
        /more than 32 full hashes under the prefix 975a8ef7 \(33 in all\)/.test(error.message),
    );
  });
});
