import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { owedBetween } from '../../../src/server/http/answer-pace.ts';

describe('owedBetween', () => {
  it('charges each answer the rate from the end of its grace, and nothing before', () => {
    // Grace 1000 ms, 1000 bytes a second: one byte a millisecond.
    assert.equal(owedBetween([0], 0, 1000, 1000, 1000), 0, 'within the grace nothing is owed');
    assert.equal(owedBetween([0], 0, 1500, 1000, 1000), 500);
    assert.equal(owedBetween([0], 1200, 1500, 1000, 1000), 300, 'only the time since the last look');
    assert.equal(owedBetween([0, 400], 1000, 2000, 1000, 1000), 1000 + 600, 'two answers owe twice, each from its own grace');
    assert.equal(owedBetween([], 0, 10_000, 1000, 1000), 0);
  });

  it('bounds the time an answer of S bytes can be held to the grace plus S over the rate', () => {
    const graceMs = 30_000;
    const rate = 16 * 1024;
    const size = 9 * 1024 * 1024;
    // A client that takes exactly what it owes, and no more, finishes here at the latest.
    const heldMs = graceMs + (size / rate) * 1000;
    assert.equal(owedBetween([0], 0, heldMs, graceMs, rate), size);
  });
});
