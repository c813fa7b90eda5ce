import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { adminTokenProblem, bearerToken, MIN_ADMIN_TOKEN_LENGTH, tokenMatches } from '../../../src/server/operator/admin-token.ts';

describe('adminTokenProblem', () => {
  it('takes what openssl rand makes', () => {
    for (let i = 0; i < 100; i++) {
      assert.equal(adminTokenProblem(randomBytes(32).toString('hex')), undefined);
      assert.equal(adminTokenProblem(randomBytes(24).toString('base64')), undefined);
    }
  });

  it('refuses short, repetitive and sequential tokens, saying how to make one', () => {
    const cases: [string, RegExp][] = [
      ['aaaaaaaaaaaaaaaa', /16 characters, fewer than the 32/],
      ['x'.repeat(MIN_ADMIN_TOKEN_LENGTH - 1), /fewer than the 32/],
      ['ab'.repeat(32), /only 2 different characters/],
      ['0123456789'.repeat(4), /repeats its first 10 characters/],
      ['a1b2c3d4e5f6g7h8i9j0'.repeat(2), /repeats its first 20 characters/],
      ['abcdefghijklmnopqrstuvwxyz0123456789', /run of neighbouring characters/],
    ];
    for (const [token, problem] of cases) {
      assert.match(adminTokenProblem(token) ?? '', problem, token);
      assert.match(adminTokenProblem(token) ?? '', /openssl rand -hex 32/);
    }
  });
});

describe('bearerToken', () => {
  it('reads only the Bearer form', () => {
    assert.equal(bearerToken('Bearer abc.def'), 'abc.def');
    assert.equal(bearerToken('bearer   abc '), 'abc');
    assert.equal(bearerToken('abc'), undefined);
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken('Bearer a b'), undefined);
    assert.equal(bearerToken('Bearer '), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});

describe('tokenMatches', () => {
  it('matches the token only, whatever the length of the guess', () => {
    const token = randomBytes(32).toString('hex');
    assert.equal(tokenMatches(token, token), true);
    assert.equal(tokenMatches(token.slice(1), token), false);
    assert.equal(tokenMatches(`${token}x`, token), false);
    assert.equal(tokenMatches('', token), false);
    assert.equal(tokenMatches(undefined, token), false);
  });
});
