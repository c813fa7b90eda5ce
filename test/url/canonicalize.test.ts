import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalizeUrl, MAX_URL_LENGTH, parseCanonicalUrl } from '../../src/url/canonicalize.ts';
import { InvalidUrlError } from '../../src/url/invalid-url.ts';
import { hostileUrl, urlLike } from './arbitraries.ts';

// SB-5: Google's published canonicalization examples, input → canonical URL, every one of them.
const SPEC_EXAMPLES: [string, string][] = [
  ['http://host/%25%32%35', 'http://host/%25'],
  ['http://host/%25%32%35%25%32%35', 'http://host/%25%25'],
  ['http://host/%2525252525252525', 'http://host/%25'],
  ['http://host/asdf%25%32%35asd', 'http://host/asdf%25asd'],
  ['http://host/%%%25%32%35asd%%', 'http://host/%25%25%25asd%25%25'],
  ['http://www.google.com/', 'http://www.google.com/'],
  [
    'http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/',
    'http://168.188.99.26/.secure/www.ebay.com/',
  ],
  [
    'http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/',
    'http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/',
  ],
  [
    'http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_55%252B',
    'http://host%23.com/~a!b@c%23d$e%25f^00&11*22(33)44_55+',
  ],
  ['http://3279880203/blah', 'http://195.127.0.11/blah'],
  ['http://www.google.com/blah/..', 'http://www.google.com/'],
  ['www.google.com/', 'http://www.google.com/'],
  ['www.google.com', 'http://www.google.com/'],
  ['http://www.evil.com/blah#frag', 'http://www.evil.com/blah'],
  ['http://www.GOOgle.com/', 'http://www.google.com/'],
  ['http://www.google.com.../', 'http://www.google.com/'],
  ['http://www.google.com/foo\tbar\rbaz\n2', 'http://www.google.com/foobarbaz2'],
  ['http://www.google.com/q?', 'http://www.google.com/q?'],
  ['http://www.google.com/q?r?', 'http://www.google.com/q?r?'],
  ['http://www.google.com/q?r?s', 'http://www.google.com/q?r?s'],
  ['http://evil.com/foo#bar#baz', 'http://evil.com/foo'],
  ['http://evil.com/foo;', 'http://evil.com/foo;'],
  ['http://evil.com/foo?bar;', 'http://evil.com/foo?bar;'],
  ['http://notrailingslash.com', 'http://notrailingslash.com/'],
  ['http://www.gotaport.com:1234/', 'http://www.gotaport.com/'],
  ['  http://www.google.com/  ', 'http://www.google.com/'],
  ['http:// leadingspace.com/', 'http://%20leadingspace.com/'],
  ['http://%20leadingspace.com/', 'http://%20leadingspace.com/'],
  ['%20leadingspace.com/', 'http://%20leadingspace.com/'],
  ['https://www.securesite.com/', 'https://www.securesite.com/'],
  ['http://host.com/ab%23cd', 'http://host.com/ab%23cd'],
  ['http://host.com//twoslashes?more//slashes', 'http://host.com/twoslashes?more//slashes'],
  // SB-5 hostname step 4: IPv6, and the two IPv6 forms that stand for IPv4.
  ['http://[2001:0db8:0000::1]/', 'http://[2001:db8::1]/'],
  ['http://[::ffff:1.2.3.4]/', 'http://1.2.3.4/'],
  ['http://[64:ff9b::1.2.3.4]/', 'http://1.2.3.4/'],
];

describe('canonicalizeUrl: SB-5 examples', () => {
  for (const [input, expected] of SPEC_EXAMPLES) {
    it(`${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(canonicalizeUrl(input), expected);
    });
  }

  it('takes a byte array as raw bytes: "http://<0x01><0x80>.com/" → http://%01%80.com/', () => {
    assert.equal(canonicalizeUrl(Uint8Array.from(Buffer.from('http://\x01\x80.com/', 'latin1'))), 'http://%01%80.com/');
  });

  it('lowercases only A-Z in a host of raw bytes (0xC0 is no letter there)', () => {
    assert.equal(canonicalizeUrl(Uint8Array.from(Buffer.from('http://\xC0B.x/', 'latin1'))), 'http://%C0b.x/');
  });
});

describe('canonicalizeUrl: rules beyond the examples', () => {
  const cases: [string, string, string][] = [
    ['a string is Unicode text, escaped as UTF-8', 'http://example.com/\u0080é', 'http://example.com/%C2%80%C3%A9'],
    ['IDN host to Punycode', 'http://Bücher.DE/', 'http://xn--bcher-kva.de/'],
    ['IDN host given escaped', 'http://b%C3%BCcher.de/', 'http://xn--bcher-kva.de/'],
    ['bytes that are no valid IDN stay and are escaped', 'http://b\u00fc cher.de/', 'http://b%C3%BC%20cher.de/'],
    ['octal IPv4', 'http://0300.0250.01.02/', 'http://192.168.1.2/'],
    ['hex IPv4', 'http://0xc0.0xA8.0x1.0x2/', 'http://192.168.1.2/'],
    ['two-component IPv4', 'http://10.258/', 'http://10.0.1.2/'],
    ['three-component IPv4', 'http://10.1.258/', 'http://10.1.1.2/'],
    ['one hex integer', 'http://0xC0A80102/', 'http://192.168.1.2/'],
    ['a number past 2^32 is a name, not an address', 'http://4294967296/', 'http://4294967296/'],
    ['an invalid octal component is a name', 'http://09.1.1.1/', 'http://09.1.1.1/'],
    ['IPv6 zero run compressed once, the longest', 'http://[1:0:0:2:0:0:0:3]/', 'http://[1:0:0:2::3]/'],
    ['IPv6 single zero group is not compressed', 'http://[1:0:2:3:4:5:6:7]/', 'http://[1:0:2:3:4:5:6:7]/'],
    ['IPv6 uppercase and port', 'http://[2001:DB8::A]:8080/x', 'http://[2001:db8::a]/x'],
    ['user and password dropped', 'http://user:pa%40ss@www.example.com:80/a', 'http://www.example.com/a'],
    ['an escaped @ cannot hide the real host', 'http://evil.example%2F@good.example/', 'http://good.example/'],
    ['a backslash ends the host as in browsers', 'http://evil.example\\@good.example/', 'http://evil.example/@good.example/'],
    ['backslashes in the path are slashes', 'http://h.example/a\\b\\..\\c', 'http://h.example/a/c'],
    ['but not in the query', 'http://h.example/a?b\\c', 'http://h.example/a?b\\c'],
    ['host:port without a scheme', 'www.example.com:8080/x', 'http://www.example.com/x'],
    ['single-label host:port without a scheme', 'localhost:8080/x', 'http://localhost/x'],
    ['uppercase scheme', 'HTTPS://Example.com', 'https://example.com/'],
    ['schemeless //host', '//example.com/a', 'http://example.com/a'],
    ['query without path', 'http://example.com?a=b', 'http://example.com/?a=b'],
    ['dot segments before slash runs', 'http://e.x/a//../b', 'http://e.x/a/b'],
    ['.. cannot climb above the root', 'http://e.x/../../a', 'http://e.x/a'],
    ['trailing /.', 'http://e.x/a/b/.', 'http://e.x/a/b/'],
    ['escaped dots count as dot segments', 'http://e.x/a/%2E%2E/b', 'http://e.x/b'],
    ['escaped slash in the path is a slash', 'http://e.x/a%2F%2Fb', 'http://e.x/a/b'],
    ['path rules do not touch the query', 'http://e.x/a?b/../c//d', 'http://e.x/a?b/../c//d'],
    ['escaped newline stays, escaped', 'http://e.x/a%0a', 'http://e.x/a%0A'],
    ['a host of raw bytes that only looks like IPv4 after IDN parsing stays a name', 'http://..255%23%C3%BC/', 'http://255%23%C3%BC/'],
    ['lowercase hex escapes come out uppercase', 'http://e.x/%c3%bc', 'http://e.x/%C3%BC'],
  ];
  for (const [what, input, expected] of cases) {
    it(what, () => assert.equal(canonicalizeUrl(input), expected));
  }
});

describe('canonicalizeUrl: unusable input', () => {
  const cases: [string, string, string][] = [
    ['empty', '', 'empty'],
    ['blank', ' \t\n ', 'empty'],
    ['fragment only', '#frag', 'empty'],
    ['no host', 'http:///', 'no-host'],
    ['only dots as host', 'http://.../a', 'no-host'],
    ['only a user', 'http://user@/', 'no-host'],
    ['javascript', 'javascript:alert(1)', 'unsupported-scheme'],
    ['mailto', 'mailto:a@example.com', 'unsupported-scheme'],
    ['ftp', 'ftp://example.com/', 'unsupported-scheme'],
    ['a scheme with nothing after it', 'javascript:', 'unsupported-scheme'],
    ['about: with a digit', 'about:1/x', 'unsupported-scheme'],
    ['data: with a digit', 'data:0?x', 'unsupported-scheme'],
    ['bad IPv6', 'http://[1:2:3]/', 'invalid-ipv6'],
    ['IPv6 with a zone', 'http://[fe80::1%25eth0]/', 'invalid-ipv6'],
    ['two ::', 'http://[1::2::3]/', 'invalid-ipv6'],
    ['brackets inside a name', 'http://a[b].example/', 'invalid-host'],
    ['brackets after escaped dots', 'http://%2E[]%/', 'invalid-host'],
    ['too long', `http://e.x/${'a'.repeat(MAX_URL_LENGTH)}`, 'too-long'],
  ];
  for (const [what, input, reason] of cases) {
    it(what, () => {
      assert.throws(
        () => canonicalizeUrl(input),
        (err: unknown) => err instanceof InvalidUrlError && err.reason === reason && err.message.includes('invalid URL'),
      );
    });
  }

  it('handles deeply nested escapes in linear time', () => {
    const nested = `http://e.x/%${'25'.repeat(400_000)}`;
    assert.equal(canonicalizeUrl(nested), 'http://e.x/%25');
  });
});

/** Runs canonicalization and reports what happened, failing the property on anything but InvalidUrlError. */
function attempt(url: string): string | undefined {
  try {
    return canonicalizeUrl(url);
  } catch (err) {
    if (err instanceof InvalidUrlError) return undefined;
    throw err;
  }
}

describe('canonicalizeUrl: properties', () => {
  const inputs = fc.oneof(fc.string({ unit: 'binary' }), hostileUrl, urlLike);

  it('throws nothing but InvalidUrlError', () => {
    fc.assert(
      fc.property(inputs, (url) => void attempt(url)),
      { numRuns: 3000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(inputs, (url) => {
        const once = attempt(url);
        if (once !== undefined) assert.equal(canonicalizeUrl(once), once);
      }),
      { numRuns: 3000 },
    );
  });

  it('yields printable ASCII only, with a path', () => {
    fc.assert(
      fc.property(inputs, (url) => {
        const once = attempt(url);
        if (once === undefined) return;
        assert.match(once, /^https?:\/\/[\x21-\x7e]+$/);
        assert.ok(parseCanonicalUrl(once).path.startsWith('/'));
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts every well-formed web URL and keeps its host', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const expectedHost = new URL(url).hostname.replace(/\.+$/, '');
        assert.equal(parseCanonicalUrl(url).host, expectedHost);
      }),
      { numRuns: 1000 },
    );
  });
});
