import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEnforced, knownDetail } from '../../src/lists/threat-details.ts';

describe('knownDetail', () => {
  it('voids a detail with an unknown threat type or attribute', () => {
    assert.deepEqual(knownDetail(2, [1]), { threatType: 'SOCIAL_ENGINEERING', attributes: ['CANARY'] });
    assert.equal(knownDetail(0, []), undefined);
    assert.equal(knownDetail(99, []), undefined);
    assert.equal(knownDetail(1, [2, 7]), undefined);
  });

  it('keeps each attribute once, however often the server repeats it', () => {
    assert.deepEqual(knownDetail(1, [2, 2, 1, 2]), { threatType: 'MALWARE', attributes: ['FRAME_ONLY', 'CANARY'] });
  });
});

describe('isEnforced', () => {
  it('acts on a detail without attributes, in a frame or not', () => {
    assert.equal(isEnforced({ threatType: 'MALWARE', attributes: [] }, false), true);
    assert.equal(isEnforced({ threatType: 'MALWARE', attributes: [] }, true), true);
  });

  it('never acts on CANARY, and on FRAME_ONLY only in a frame (docs/api.md ThreatAttribute)', () => {
    assert.equal(isEnforced({ threatType: 'MALWARE', attributes: ['CANARY'] }, true), false);
    assert.equal(isEnforced({ threatType: 'MALWARE', attributes: ['FRAME_ONLY'] }, false), false);
    assert.equal(isEnforced({ threatType: 'MALWARE', attributes: ['FRAME_ONLY'] }, true), true);
    assert.equal(isEnforced({ threatType: 'MALWARE', attributes: ['FRAME_ONLY', 'CANARY'] }, true), false);
  });
});
