import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type CanonicalUrl, parseCanonicalUrl, parseCanonicalUrlInFull } from '../../src/url/canonicalize.ts';
import { parseAlreadyCanonical } from '../../src/url/fast-path.ts';
import { InvalidUrlError } from '../../src/url/invalid-url.ts';

describe('parseAlreadyCanonical: takes canonical URLs as they are', () => {
  const cases: [string, CanonicalUrl][] = [
    ['http://www.example.com/', { scheme: 'http', host: 'www.example.com', path: '/', query: undefined }],
    ['https://a.b.example.co.uk/x/y.html?q=1&r=2', { scheme: 'https', host: 'a.b.example.co.uk', path: '/x/y.html', query: 'q=1&r=2' }],
    ['http://example.com', { scheme: 'http', host: 'example.com', path: '/', query: undefined }],
    ['http://example.com?a=/b', { scheme: 'http', host: 'example.com', path: '/', query: 'a=/b' }],
    ['http://example.com/q?', { scheme: 'http', host: 'example.com', path: '/q', query: '' }],
    ['http://example.com/q?r?s\\t', { scheme: 'http', host: 'example.com', path: '/q', query: 'r?s\\t' }],
    ['http://example.com/a/#x/../%zz', { scheme: 'http', host: 'example.com', path: '/a/', query: undefined }],
    ['http://example.com#frag', { scheme: 'http', host: 'example.com', path: '/', query: undefined }],
    ['http://195.127.0.11/.verify/...', { scheme: 'http', host: '195.127.0.11', path: '/.verify/...', query: undefined }],
    ['http://123movies.example/a;b@c:d', { scheme: 'http', host: '123movies.example', path: '/a;b@c:d', query: undefined }],
    ['http://my_host.example/~user', { scheme: 'http', host: 'my_host.example', path: '/~user', query: undefined }],
    ['http://xn--bcher-kva.de/', { scheme: 'http', host: 'xn--bcher-kva.de', path: '/', query: undefined }],
  ];
  for (const [input, expected] of cases) {
    it(input, () => {
      assert.deepEqual(parseAlreadyCanonical(input), expected);
      assert.deepEqual(parseCanonicalUrlInFull(input), expected);
    });
  }
});

describe('parseAlreadyCanonical: leaves every URL with work in it to the full procedure', () => {
  const cases: [string, string][] = [
    ['upper-case host', 'http://www.Example.com/'],
    ['upper-case scheme', 'HTTP://www.example.com/'],
    ['no scheme', 'www.example.com/'],
    ['another scheme', 'ftp://example.com/'],
    ['a third slash', 'http:///example.com/'],
    ['a backslash after the scheme', 'http:\\\\example.com/'],
    ['leading dot', 'http://.example.com/'],
    ['trailing dot', 'http://example.com./'],
    ['run of dots', 'http://a..example.com/'],
    ['empty host', 'http:///'],
    ['port', 'http://example.com:80/'],
    ['user info', 'http://user@example.com/'],
    ['escape in the host', 'http://ex%61mple.com/'],
    ['escape in the path', 'http://example.com/%7Euser'],
    ['escape in the query', 'http://example.com/?a=%20'],
    ['a lone percent sign', 'http://example.com/100%'],
    ['IPv4 in hex', 'http://0x7f.0.0.1/'],
    ['IPv4 in octal', 'http://0177.0.0.1/'],
    ['IPv4 as one number', 'http://3279880203/'],
    ['IPv4 with three parts', 'http://10.1.258/'],
    ['IPv6', 'http://[2001:db8::1]/'],
    ['IDN', 'http://bücher.de/'],
    ['dot segment', 'http://example.com/a/./b'],
    ['dot-dot segment', 'http://example.com/a/../b'],
    ['trailing dot-dot', 'http://example.com/a/..'],
    ['dot-dot before the query', 'http://example.com/a/..?q'],
    ['dot segment before the fragment', 'http://example.com/a/.#f'],
    ['run of slashes', 'http://example.com//a'],
    ['backslash in the path', 'http://example.com/a\\b'],
    ['space in the path', 'http://example.com/a b'],
    ['tab', 'http://example.com/a\tb'],
    ['line feed', 'http://example.com/a\nb'],
    ['leading space', ' http://example.com/'],
    ['trailing space', 'http://example.com/ '],
    ['control character', 'http://example.com/\u0001'],
    ['non-ASCII in the path', 'http://example.com/é'],
    ['non-ASCII in the query', 'http://example.com/?q=é'],
    ['DEL', 'http://example.com/\u007f'],
  ];
  for (const [what, input] of cases) {
    it(what, () => assert.equal(parseAlreadyCanonical(input), undefined));
  }
});

/** What parsing gives: the canonical URL, or the reason it is refused. */
function outcome(parse: (url: string) => CanonicalUrl, url: string): CanonicalUrl | string {
  try {
    return parse(url);
  } catch (err) {
    if (err instanceof InvalidUrlError) return err.code;
    throw err;
  }
}

// URLs built from parts, each part most often canonical and otherwise one step off it, so that about half
// of them sit on the fast path and the rest just beside it.
const nearly = <T>(canonical: fc.Arbitrary<T>, ...off: fc.Arbitrary<T>[]): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: canonical, weight: 15 }, ...off.map((arbitrary) => ({ arbitrary, weight: 1 })));

const scheme = nearly(
  fc.constantFrom('http://', 'https://'),
  fc.constantFrom('HTTP://', 'Https://', 'http:/', 'http:///', 'http:\\\\', 'http:', '', '//', 'ftp://', 'javascript:'),
);
const userInfo = nearly(fc.constant(''), fc.constantFrom('user@', 'u:p@', 'a%40b@', '@', 'x@y@'));
const label = nearly(
  fc.stringMatching(/^[a-z0-9_-]{1,12}$/),
  fc.constantFrom('WWW', 'Example', 'bücher', '中文', 'xn--bcher-kva', 'a%41', '%2e', 'a b', '', '0x7f', '017', '4294967296', 'A[1]'),
);
const ipv4 = fc.oneof(
  fc.ipV4(),
  fc.ipV4Extended(),
  fc.constantFrom('1.2.3', '10.258', '3279880203', '256.1.1.1', '1.2.3.4.5', '01.2.3.4', '0x7f.1', '1.2.3.4.', '.1.2.3.4', '09.1.1.1'),
);
const ipv6 = fc.oneof(
  fc.ipV6().map((ip) => `[${ip}]`),
  fc.constantFrom('[::ffff:1.2.3.4]', '[64:ff9b::1.2.3.4]', '[2001:DB8::A]', '[1:2:3]', '[1::2::3]', '[fe80::1%25eth0]'),
);
const host = fc.oneof(
  { arbitrary: fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.')), weight: 8 },
  { arbitrary: fc.domain(), weight: 2 },
  { arbitrary: ipv4, weight: 2 },
  { arbitrary: ipv6, weight: 1 },
  { arbitrary: fc.constantFrom('.a.example', 'a.example.', 'a..example', '..', ''), weight: 1 },
);
const port = nearly(fc.constant(''), fc.constantFrom(':80', ':8080', ':', ':x'));
const segment = nearly(
  fc.stringMatching(/^[a-zA-Z0-9._~!$&'()*+,;=:@-]{0,10}$/),
  fc.constantFrom('.', '..', '...', '.well-known', '%2e', '%2E%2E', '%2F', '%25', '%', '%7E', '%20', '\\', ' ', '\t', 'é', '?', '#', '%23'),
);
const path = nearly(
  fc.array(segment, { maxLength: 6 }).map((segments) => segments.map((s) => `/${s}`).join('')),
  fc.constantFrom('//', '/a//b', '/a/.', '/a/..', '\\a'),
);
const query = nearly(
  fc.option(fc.stringMatching(/^[a-zA-Z0-9=&+/?.:@!$'()*,;~\\-]{0,16}$/), { nil: undefined }),
  fc.constantFrom('a=%20', 'a=%3A%2F%2F', 'q=ü', 'a b', 'a\tb', '%', '%25%32%35', 'x=1#y'),
);
const fragment = nearly(fc.constantFrom('', '#', '#frag'), fc.constantFrom('#a#b', '#ü %', '#\t', '#/../x'));
const padding = nearly(fc.constant(''), fc.constantFrom(' ', '\t', '\n', '\u0000'));

const edgyUrl = fc
  .tuple(padding, scheme, userInfo, host, port, path, query, fragment, padding)
  .map(
    ([lead, s, user, h, p, pathText, q, frag, trail]) =>
      `${lead}${s}${user}${h}${p}${pathText}${q === undefined ? '' : `?${q}`}${frag}${trail}`,
  );

describe('the fast path and the full procedure agree', () => {
  it('on 100,000 URLs built to sit on the fast path and just beside it', () => {
    let taken = 0;
    let declined = 0;
    fc.assert(
      fc.property(edgyUrl, (url) => {
        const fast = parseAlreadyCanonical(url);
        const full = outcome(parseCanonicalUrlInFull, url);
        if (fast === undefined) declined++;
        else {
          taken++;
          assert.deepEqual(fast, full);
        }
        assert.deepEqual(outcome(parseCanonicalUrl, url), full);
      }),
      { numRuns: 100_000 },
    );
    // Both sides of the edge are explored, or the property proves little.
    assert.ok(taken > 20_000, `only ${taken} URLs took the fast path`);
    assert.ok(declined > 20_000, `only ${declined} URLs were left to the full procedure`);
  });
});
