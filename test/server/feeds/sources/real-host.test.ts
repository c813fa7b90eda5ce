import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BadEntryError } from '../../../../src/server/feeds/feed-error.ts';
import { realHost } from '../../../../src/server/feeds/sources/real-host.ts';
import { parseCanonicalUrl } from '../../../../src/url/canonicalize.ts';

const canonicalHost = (host: string) => parseCanonicalUrl(`http://${host}/`).host;

function refused(host: string): string {
  try {
    realHost(host);
  } catch (error) {
    assert.ok(error instanceof BadEntryError, String(error));
    return error.message;
  }
  assert.fail(`${JSON.stringify(host)} was taken for a host`);
}

describe('realHost', () => {
  it('takes names of two or more labels, IDNs as Punycode, and IP literals', () => {
    for (const host of [
      'bad.example',
      'a-b.c-d.example',
      'xn--bcher-kva.example',
      '1.2.3.4',
      '[2001:db8::1]',
      'evil_1.example',
      'x.y',
      'evil-.blogspot.com',
      '-x.example',
    ]) {
      assert.equal(realHost(host), host);
    }
    assert.equal(realHost(canonicalHost('Bücher.example')), 'xn--bcher-kva.example');
  });

  it('refuses text that is no host, saying why', () => {
    assert.match(refused(canonicalHost('<html>')), /"<html>" is no host name: a name has a dot/);
    assert.match(refused(canonicalHost('try again later')), /"try%20again%20later" is no host name/);
    assert.match(refused('bad..example'), /labels are letters, digits/);
    assert.match(refused('*.evil.example'), /labels are letters, digits/);
    assert.match(refused('||ads.example^'), /labels are letters, digits/);
    assert.match(refused('localhost'), /a name has a dot/);
    assert.match(refused('999.1.1.1'), /ends in a number but is no IPv4 address/);
    assert.match(refused(`${'a'.repeat(64)}.example`), /label longer than 63/);
    assert.match(refused(`${'a.'.repeat(127)}example`), /longer than 253/);
  });

  it('takes every domain name and IP address, in canonical form', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.domain(),
          fc.ipV4(),
          fc.ipV4Extended(),
          fc.ipV6().map((ip) => `[${ip}]`),
        ),
        (host) => {
          const canonical = canonicalHost(host);
          assert.equal(realHost(canonical), canonical);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('refuses a domain name with a character no host name has, or a single word', () => {
    const junk = fc.constantFrom(
      '*',
      '|',
      '^',
      '<',
      '>',
      '!',
      '$',
      '&',
      "'",
      '(',
      ')',
      '+',
      ',',
      ';',
      '=',
      '~',
      '`',
      '{',
      '}',
      '"',
      ' ',
      '%20',
    );
    const spoiled = fc.oneof(
      fc
        .tuple(fc.domain(), junk, fc.nat())
        .map(([domain, bad, at]) => domain.slice(0, at % (domain.length + 1)) + bad + domain.slice(at % (domain.length + 1))),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,30}[a-z0-9]$/),
    );
    fc.assert(
      fc.property(spoiled, (host) => {
        refused(canonicalHost(host));
      }),
      { numRuns: 1000 },
    );
  });
});
