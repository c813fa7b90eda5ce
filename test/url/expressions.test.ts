import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCanonicalUrl } from '../../src/url/canonicalize.ts';
import { hostSuffixStarts, MAX_EXPRESSIONS, MAX_HOSTS, MAX_PATHS, pathPrefixLengths, urlExpressions } from '../../src/url/expressions.ts';
import { InvalidUrlError } from '../../src/url/invalid-url.ts';
import { hostileUrl, urlLike } from './arbitraries.ts';

const hostVariants = (host: string) => hostSuffixStarts(host).map((start) => host.slice(start));
const pathVariants = (path: string, query: string | undefined) =>
  pathPrefixLengths(path, query).map((length) => (query === undefined ? path : `${path}?${query}`).slice(0, length));

describe('urlExpressions: SB-6 examples, in the spec order', () => {
  it('http://a.b.com/1/2.html?param=1', () => {
    assert.deepEqual(urlExpressions('http://a.b.com/1/2.html?param=1'), [
      'a.b.com/1/2.html?param=1',
      'a.b.com/1/2.html',
      'a.b.com/',
      'a.b.com/1/',
      'b.com/1/2.html?param=1',
      'b.com/1/2.html',
      'b.com/',
      'b.com/1/',
    ]);
  });

  it('http://a.b.c.d.e.f.com/1.html skips b.c.d.e.f.com', () => {
    assert.deepEqual(urlExpressions('http://a.b.c.d.e.f.com/1.html'), [
      'a.b.c.d.e.f.com/1.html',
      'a.b.c.d.e.f.com/',
      'c.d.e.f.com/1.html',
      'c.d.e.f.com/',
      'd.e.f.com/1.html',
      'd.e.f.com/',
      'e.f.com/1.html',
      'e.f.com/',
      'f.com/1.html',
      'f.com/',
    ]);
  });

  it('http://1.2.3.4/1/ gets no host suffixes', () => {
    assert.deepEqual(urlExpressions('http://1.2.3.4/1/'), ['1.2.3.4/1/', '1.2.3.4/']);
  });

  it('http://example.co.uk/1 never tries the public suffix co.uk', () => {
    assert.deepEqual(urlExpressions('http://example.co.uk/1'), ['example.co.uk/1', 'example.co.uk/']);
  });
});

describe('urlExpressions: further rules', () => {
  it('makes no expression of an empty query, as Chromium and the Go client do not', () => {
    assert.deepEqual(urlExpressions('http://example.com/q?'), ['example.com/q', 'example.com/']);
  });

  it('uses at most four path prefixes after the exact paths', () => {
    assert.deepEqual(pathVariants('/1/2/3/4/5/6.html', 'x=1'), [
      '/1/2/3/4/5/6.html?x=1',
      '/1/2/3/4/5/6.html',
      '/',
      '/1/',
      '/1/2/',
      '/1/2/3/',
    ]);
  });

  it('a host that is itself a public suffix or a single label stands alone', () => {
    assert.deepEqual(hostVariants('co.uk'), ['co.uk']);
    assert.deepEqual(hostVariants('localhost'), ['localhost']);
  });

  it('takes the eTLD+1 from the ICANN suffixes only', () => {
    assert.deepEqual(hostVariants('www.user.github.io'), ['www.user.github.io', 'user.github.io', 'github.io']);
    assert.deepEqual(hostVariants('a.b.example.co.uk'), ['a.b.example.co.uk', 'b.example.co.uk', 'example.co.uk']);
  });

  it('bracketed IPv6 hosts get no host suffixes', () => {
    assert.deepEqual(urlExpressions('http://[2001:db8::1]/a'), ['[2001:db8::1]/a', '[2001:db8::1]/']);
  });

  it('rejects unusable URLs with InvalidUrlError', () => {
    assert.throws(() => urlExpressions('javascript:void(0)'), InvalidUrlError);
  });
});

/** The expressions of a URL, or undefined when it is unusable; anything but InvalidUrlError fails. */
function expressionsOrNone(url: string): string[] | undefined {
  try {
    return urlExpressions(url);
  } catch (err) {
    if (err instanceof InvalidUrlError) return undefined;
    throw err;
  }
}

describe('urlExpressions: properties', () => {
  const inputs = fc.oneof(urlLike, hostileUrl, fc.webUrl({ withQueryParameters: true }));

  it('hold the limits of 30 expressions, 5 hosts and 6 paths, with no duplicates', () => {
    fc.assert(
      fc.property(inputs, (url) => {
        const expressions = expressionsOrNone(url);
        if (expressions === undefined) return;
        const parts = parseCanonicalUrl(url);
        assert.ok(expressions.length >= 1 && expressions.length <= MAX_EXPRESSIONS);
        assert.equal(new Set(expressions).size, expressions.length);
        assert.ok(hostVariants(parts.host).length <= MAX_HOSTS);
        assert.ok(pathVariants(parts.path, parts.query).length <= MAX_PATHS);
      }),
      { numRuns: 2000 },
    );
  });

  it('every expression is a suffix of the canonical host, a dot boundary away, followed by a path prefix', () => {
    fc.assert(
      fc.property(inputs, (url) => {
        const expressions = expressionsOrNone(url);
        if (expressions === undefined) return;
        const { host, path, query } = parseCanonicalUrl(url);
        const full = query === undefined ? path : `${path}?${query}`;
        for (const expression of expressions) {
          const slash = expression.indexOf('/');
          const exprHost = expression.slice(0, slash);
          assert.ok(exprHost === host || host.endsWith(`.${exprHost}`), `${exprHost} is not a suffix of ${host}`);
          assert.ok(full.startsWith(expression.slice(slash)), `${expression} is no prefix of ${full}`);
        }
        assert.equal(expressions[0], query === '' ? `${host}${path}` : `${host}${full}`);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('hostSuffixStarts: remembered answers', () => {
  it('answer as the Public Suffix List does, before and after thousands of other hosts have taken their slots', () => {
    const hosts = Array.from({ length: 20_000 }, (_, i) => `h${i}.x${i % 7}.example.co.uk`);
    const first = hosts.map((host) => [...hostSuffixStarts(host)]);
    hosts.forEach((host, i) => assert.deepEqual(hostSuffixStarts(host), first[i]));
    assert.deepEqual(hostVariants('h19999.x0.example.co.uk'), ['h19999.x0.example.co.uk', 'x0.example.co.uk', 'example.co.uk']);
    // Same length, same first four and middle characters: one slot, taken in turns.
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(hostVariants('abcd1.aaa.example.com'), ['abcd1.aaa.example.com', 'aaa.example.com', 'example.com']);
      assert.deepEqual(hostVariants('abcd12.aa.example.com'), ['abcd12.aa.example.com', 'aa.example.com', 'example.com']);
    }
    const long = `${'a'.repeat(300)}.example.com`;
    assert.deepEqual(hostVariants(long), [long, 'example.com']);
    assert.deepEqual(hostVariants(long), [long, 'example.com']);
  });
});
