import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FeedFormatError } from '../../../../src/server/feeds/feed-error.ts';
import { FEED_FORMATS, type FeedFormat, type ParsedFeed, parseFeed } from '../../../../src/server/feeds/formats/feed-formats.ts';
import { MAX_BAD_LINE_TEXT, MAX_REPORTED_BAD_LINES } from '../../../../src/server/feeds/feed-collector.ts';
import { realHost } from '../../../../src/server/feeds/sources/real-host.ts';
import { parseCanonicalUrl } from '../../../../src/url/canonicalize.ts';
import { expressionsOf } from '../../../../src/url/expressions.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
}

/** Line numbers and reasons of the bad lines, the part of a report that tests pin down. */
function badLineNumbers(feed: ParsedFeed): number[] {
  return feed.badLines.map((bad) => bad.line);
}

describe('parseFeed: formats people publish (docs/api.md §4)', () => {
  it('urls: an OpenPhish-style plain list', () => {
    const feed = parseFeed(fixture('openphish.txt'), 'urls');
    assert.deepEqual(feed.expressions, [
      'secure-login.paypa1.example/signin/',
      'verify.account-update.example/wp-admin/includes/index.php?email=victim@example.com',
      'bit.example/xYz',
      'example-phish.example/',
      '[2001:db8::1]/login',
    ]);
    assert.equal(feed.entryCount, 5);
    assert.deepEqual(badLineNumbers(feed), [6]);
    assert.equal(feed.badLines[0]!.text, 'javascript:alert(1)');
    assert.match(feed.badLines[0]!.reason, /not http or https/);
    assert.equal(feed.badLineCount, 1);
  });

  it("hosts: several hosts per line, comments, and no entries for the machine's own names", () => {
    const feed = parseFeed(fixture('hosts.txt'), 'hosts');
    assert.deepEqual(feed.expressions, [
      'ads.tracker.example/',
      'malware.example/',
      'www.malware.example/',
      'cdn.malware.example/',
      'phish.example.net/',
    ]);
    assert.equal(feed.entryCount, 6, 'the repeated ads.tracker.example counts as an entry, not as an expression');
    assert.deepEqual(badLineNumbers(feed), [24, 25]);
    assert.match(feed.badLines[0]!.reason, /"bad\/path\.example" is not a bare host name/);
    assert.match(feed.badLines[1]!.reason, /starts with an IP address/);
  });

  it('hosts: a line keeps its good names when one is bad, and a single name is a domain-only entry', () => {
    const feed = parseFeed('0.0.0.0 good.example bad@name.example also.example\nlonely.example\n127.0.0.1\n', 'hosts');
    assert.deepEqual(feed.expressions, ['good.example/', 'also.example/', 'lonely.example/', '127.0.0.1/']);
    assert.deepEqual(badLineNumbers(feed), [1]);
  });

  it('csv: a URLhaus export with its header in a comment and quoted fields', () => {
    const feed = parseFeed(fixture('urlhaus.csv'), 'csv');
    assert.deepEqual(feed.expressions, [
      '1.2.3.4/bins/x.sh',
      'files.bad-host.example/dl/Invoice%20Nov.zip?id=7',
      '0x7f000001.evil.example/a/c.exe',
    ]);
    assert.equal(feed.entryCount, 4);
    assert.deepEqual(badLineNumbers(feed), [13]);
    assert.ok(feed.badLines[0]!.text.startsWith('"3412342","2026-11-01 09:41:33","ftp://old.example/payload.bin"'));
  });

  it('csv: a PhishTank export with a header row, CRLF, and commas and quotes inside quoted URLs', () => {
    const feed = parseFeed(fixture('phishtank.csv'), 'csv');
    assert.deepEqual(feed.expressions, [
      'login.bank.example/secure/verify.php',
      'pay.example/a,b/confirm?x=1,2&y="q"',
      'shop.example/account',
    ]);
    assert.deepEqual(badLineNumbers(feed), [4]);
    assert.equal(feed.badLines[0]!.reason, 'the URL column is empty');
    assert.ok(!feed.badLines[0]!.text.endsWith('\r'));
  });

  it('domains: a Tranco-style ranked list, IDNs in Punycode', () => {
    const feed = parseFeed(fixture('tranco.csv'), 'domains');
    assert.deepEqual(feed.expressions, ['google.com/', 'facebook.com/', 'microsoft.com/', 'xn--bcher-kva.example/']);
    assert.equal(feed.entryCount, 6);
    assert.deepEqual(badLineNumbers(feed), [6, 7]);
    assert.equal(feed.badLines[1]!.reason, 'the domain column is empty');
  });

  it('domains: a plain one-domain-per-line list and a list with a header naming its domain column', () => {
    assert.deepEqual(parseFeed('a.example\nB.example\n', 'domains').expressions, ['a.example/', 'b.example/']);
    const majestic = 'GlobalRank,TldRank,Domain,TLD\n1,1,google.com,com\n2,2,facebook.com,com\n';
    assert.deepEqual(parseFeed(majestic, 'domains').expressions, ['google.com/', 'facebook.com/']);
  });

  it('bare hosts and expressions: an IPv6 address is the address, a host with a port is a bad line, not another host', () => {
    const feed = parseFeed('2001:db8::1\n0:0:0:0:0:ffff:102:304\na.example:8080\n', 'domains');
    assert.deepEqual(feed.expressions, ['[2001:db8::1]/', '1.2.3.4/']);
    assert.deepEqual(badLineNumbers(feed), [3]);
    assert.deepEqual(parseFeed('0.0.0.0 2001:db8::2\n', 'hosts').expressions, ['[2001:db8::2]/']);
    const expressions = parseFeed('2001:db8::1/a\n[2001:db8::3]/b\na.example:8080/x\n', 'expressions');
    assert.deepEqual(expressions.expressions, ['[2001:db8::1]/a', '[2001:db8::3]/b']);
    assert.deepEqual(badLineNumbers(expressions), [3]);
  });

  it('expressions: host/path lines, canonicalized anyway; a URL with a scheme is a bad line', () => {
    const feed = parseFeed(fixture('expressions.txt'), 'expressions');
    assert.deepEqual(feed.expressions, [
      'evil.example/',
      'example.com/b',
      'phish.example/login.html?session=1',
      '1.2.3.4/bins/',
      'testsafebrowsing.appspot.com/s/phishing.html',
    ]);
    assert.deepEqual(badLineNumbers(feed), [6]);
    assert.match(feed.badLines[0]!.reason, /format "urls"/);
  });

  it('urls: text that names no host is a bad line, not an entry (an HTML error page, words)', () => {
    const page =
      '<html>\n<head><title>503 Service Unavailable</title></head>\n<body>\ntry again later\n</body>\n</html>\nnot a url at all\n';
    const feed = parseFeed(page, 'urls');
    assert.deepEqual(feed.expressions, []);
    assert.equal(feed.lineCount, 7);
    assert.equal(feed.badLineCount, 7);
    assert.match(feed.badLines[0]!.reason, /"<html>" is no host name/);
    assert.match(feed.badLines[6]!.reason, /"not%20a%20url%20at%20all" is no host name/);
  });

  it("hosts and expressions: a name must be a real host; the machine's own names are still skipped silently", () => {
    const hosts = parseFeed(
      '0.0.0.0 bad_word\n0.0.0.0 *.evil.example\n||ads.example^\n127.0.0.1 localhost\n0.0.0.0 good.example\n0.0.0.0 xn--bcher-kva.example\n',
      'hosts',
    );
    assert.deepEqual(hosts.expressions, ['good.example/', 'xn--bcher-kva.example/']);
    assert.deepEqual(badLineNumbers(hosts), [1, 2, 3]);
    const expressions = parseFeed('evil.example/\nnot an expression/\n*.x.example/a\n', 'expressions');
    assert.deepEqual(expressions.expressions, ['evil.example/']);
    assert.deepEqual(badLineNumbers(expressions), [2, 3]);
  });

  it('a URL becomes the first SB-6 expression of its canonical form; a bare host the whole host', () => {
    const urls = [
      'http://a.b.com/1/2.html?param=1',
      'http://www.google.com/blah/..',
      'www.GOOgle.com',
      'http://evil.com/foo#bar#baz',
      'http://www.google.com/q?',
    ];
    const feed = parseFeed(urls.join('\n'), 'urls');
    assert.deepEqual(feed.expressions, ['a.b.com/1/2.html?param=1', 'www.google.com/', 'evil.com/foo', 'www.google.com/q']);
    for (const url of urls.slice(0, 4)) assert.ok(feed.expressions.includes(expressionsOf(parseCanonicalUrl(url))[0]!));
  });
});

describe('parseFeed: line handling', () => {
  const samples: Record<FeedFormat, string> = {
    urls: '# list\nhttp://a.example/x\n\nnope://b\nhttps://c.example/?q=1\n',
    hosts: '# hosts\n0.0.0.0 a.example b.example\n127.0.0.1 localhost\nbad line here\n',
    csv: '# id,url\n"1","http://a.example/"\n"2","http://b.example/x,y"\n"3",""\n',
    expressions: 'a.example/\nb.example/x/../y\nhttp://c.example/\n',
    domains: '1,a.example\n2,b.example\n3,bad domain\n',
  };

  for (const format of FEED_FORMATS) {
    it(`${format}: CRLF line ends and a byte order mark change nothing`, () => {
      const lf = parseFeed(samples[format], format);
      const crlf = parseFeed(`\ufeff${samples[format].replace(/\n/g, '\r\n')}`, format);
      assert.ok(lf.expressions.length >= 2);
      assert.ok(lf.badLineCount >= 1);
      assert.deepEqual(crlf, lf);
    });
  }

  it('skips blank lines and comments silently, however indented', () => {
    const feed = parseFeed('\n   \n\t# indented comment\n  # another\r\n\r\n', 'urls');
    assert.deepEqual(feed, { expressions: [], badLines: [], badLineCount: 0, lineCount: 0, entryCount: 0 });
  });

  it('keeps the first bad lines with their text shortened, and counts all of them', () => {
    const long = `ftp://${'x'.repeat(1000)}`;
    const lines = [long, ...Array.from({ length: 249 }, (_, i) => `gopher://bad${i}.example/`), 'http://good.example/'];
    const feed = parseFeed(lines.join('\n'), 'urls');
    assert.equal(feed.badLineCount, 250);
    assert.equal(feed.badLines.length, MAX_REPORTED_BAD_LINES);
    assert.equal(feed.badLines[0]!.text, `${long.slice(0, MAX_BAD_LINE_TEXT - 1)}…`);
    assert.ok(feed.badLines.every((bad) => bad.text.length <= MAX_BAD_LINE_TEXT));
    assert.equal(feed.badLines[99]!.line, 100);
    assert.deepEqual(feed.expressions, ['good.example/']);
  });

  it('reports a URL longer than browsers accept as a bad line', () => {
    const feed = parseFeed(`http://a.example/${'a'.repeat(3 * 1024 * 1024)}\nhttp://b.example/\n`, 'urls');
    assert.deepEqual(feed.expressions, ['b.example/']);
    assert.match(feed.badLines[0]!.reason, /longer than the 2 MiB/);
  });

  it('handles very long lines and many stray quotes in linear time', { timeout: 20_000 }, () => {
    const manyHosts = `0.0.0.0 ${Array.from({ length: 200_000 }, (_, i) => `h${i}.example`).join(' ')}`;
    assert.equal(parseFeed(manyHosts, 'hosts').expressions.length, 200_000);
    const wideRow = `${',x'.repeat(1_000_000)},http://a.example/`;
    assert.deepEqual(parseFeed(wideRow, 'csv', { csvColumn: 1_000_001 }).expressions, ['a.example/']);
    // A quote that never closes (the quotes after it all come in pairs) runs to the end of the text
    // once; the lines after it are then read one by one, each to its own end.
    const good = Array.from({ length: 50_000 }, (_, i) => `${i},http://q${i}.example/?a=""b`);
    const feed = parseFeed(['x,"http://never-closed.example/', ...good].join('\n'), 'csv', { csvColumn: 1 });
    assert.equal(feed.expressions.length, 50_000);
    assert.equal(feed.expressions[49_999], 'q49999.example/?a=""b');
    assert.deepEqual(badLineNumbers(feed), [1]);
  });
});

describe('parseFeed: CSV columns and quoting (RFC 4180)', () => {
  it('takes the column by header name, case-insensitively, or by 0-based index', () => {
    const text = 'id,Link,other\n1,http://a.example/,x\n';
    assert.deepEqual(parseFeed(text, 'csv', { csvColumn: 'LINK' }).expressions, ['a.example/']);
    assert.deepEqual(parseFeed('1,http://a.example/,x\n', 'csv', { csvColumn: 1 }).expressions, ['a.example/']);
  });

  it('does not take a header row for an entry when the column is given by index', () => {
    const feed = parseFeed('phish_id,url\n1,http://a.example/\n', 'csv', { csvColumn: 1 });
    assert.deepEqual(feed.expressions, ['a.example/']);
    assert.equal(feed.badLineCount, 0);
  });

  it('refuses a CSV feed whose URL column cannot be found, saying what to configure', () => {
    assert.throws(
      () => parseFeed('1,http://a.example/\n', 'csv'),
      (error: unknown) => {
        assert.ok(error instanceof FeedFormatError);
        assert.match(error.message, /line 1: .*"url" column; set csvColumn/);
        return true;
      },
    );
    assert.throws(() => parseFeed('id,url\n1,http://a.example/\n', 'csv', { csvColumn: 'link' }), /column "link"/);
  });

  it('reports a row too short for the column', () => {
    const feed = parseFeed('id,url\n1,http://a.example/\n2\n', 'csv');
    assert.deepEqual(feed.expressions, ['a.example/']);
    assert.deepEqual(feed.badLines, [{ line: 3, text: '2', reason: 'the row has 1 field(s); the URL is in column 1 (0-based)' }]);
  });

  it('reads quoted fields over line breaks and keeps counting lines after them', () => {
    const text = 'id,url,note\n1,http://a.example/,"two\nlines"\n2,http://b.example/,x\n3,gopher://c,x\n';
    const feed = parseFeed(text, 'csv');
    assert.deepEqual(feed.expressions, ['a.example/', 'b.example/']);
    assert.deepEqual(badLineNumbers(feed), [5]);
  });

  it('recovers from a quote that never closes: that line is bad, the next ones count', () => {
    const text = 'id,url\n1,"http://a.example/\n2,http://b.example/\n3,http://c.example/\n';
    const feed = parseFeed(text, 'csv');
    assert.deepEqual(feed.expressions, ['b.example/', 'c.example/']);
    assert.deepEqual(feed.badLines, [
      { line: 2, text: '1,"http://a.example/', reason: 'a quoted field is never closed (RFC 4180: a field in quotes ends with a quote)' },
    ]);
  });
});

// Properties: arbitrary text never throws anything but the typed errors, and whatever comes out is a
// canonical expression.

/** SB-5 output is printable ASCII; an expression is a canonical host, a path, maybe a query, and a fixed point. */
function assertCanonicalExpression(expression: string): void {
  assert.match(expression, /^[\x21-\x7e]+$/);
  assert.ok(expression.indexOf('/') > 0, `${expression} has a host and a path`);
  assert.ok(!expression.includes('#'));
  const canonical = parseCanonicalUrl(`http://${expression}`);
  assert.equal(expressionsOf(canonical)[0], expression);
  assert.equal(realHost(canonical.host), canonical.host);
}

const feedPiece = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'http://',
      'https://',
      'ftp://',
      '0.0.0.0 ',
      '127.0.0.1\t',
      '::1 ',
      'localhost',
      'local',
      ' ',
      '\t',
      ',',
      '"',
      '""',
      '#',
      '/',
      '../',
      './',
      '//',
      '%',
      '%25',
      '%2e',
      '%00',
      '?',
      '&',
      '@',
      ':8080',
      '[',
      ']',
      '[::1]',
      'EXAMPLE',
      'example.com',
      'a.b.co.uk',
      'xn--',
      'ü',
      '\u3002',
      '\r',
      '\n',
      '\r\n',
      '\u00a0',
      '\ufeff',
      '\x00',
      '\x7f',
      '1',
      '0x7f',
      '255.255.255.255',
      'url',
      'domain',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 4 }) },
);
const feedLine = fc.oneof(
  fc.array(feedPiece, { maxLength: 14 }).map((pieces) => pieces.join('')),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
);
const feedText = fc
  .tuple(fc.boolean(), fc.array(feedLine, { maxLength: 25 }), fc.constantFrom('\n', '\r\n'))
  .map(([bom, lines, eol]) => `${bom ? '\ufeff' : ''}${lines.join(eol)}`);

function parseOrTypedError(text: string, format: FeedFormat, csvColumn?: string | number): ParsedFeed | undefined {
  try {
    return parseFeed(text, format, { csvColumn });
  } catch (error) {
    if (error instanceof FeedFormatError && (format === 'csv' || format === 'domains')) return undefined;
    throw error;
  }
}

describe('parseFeed: properties', () => {
  const cases: [FeedFormat, (string | number)?][] = [
    ['urls'],
    ['hosts'],
    ['expressions'],
    ['csv'],
    ['csv', 1],
    ['domains'],
    ['domains', 'domain'],
  ];
  for (const [format, csvColumn] of cases) {
    it(`${format}${csvColumn === undefined ? '' : ` (column ${csvColumn})`}: arbitrary text gives canonical expressions or a FeedFormatError, nothing else`, () => {
      fc.assert(
        fc.property(feedText, (text) => {
          const feed = parseOrTypedError(text, format, csvColumn);
          if (feed === undefined) return;
          for (const expression of feed.expressions) assertCanonicalExpression(expression);
          assert.equal(new Set(feed.expressions).size, feed.expressions.length);
          assert.ok(feed.entryCount >= feed.expressions.length);
          assert.ok(feed.badLineCount <= feed.lineCount);
          assert.ok(feed.badLines.length <= Math.min(feed.badLineCount, MAX_REPORTED_BAD_LINES));
        }),
        { numRuns: 1000 },
      );
    });
  }

  it('expressions of a feed read back as themselves in the expressions format', () => {
    fc.assert(
      fc.property(feedText, (text) => {
        const { expressions } = parseFeed(text, 'urls');
        const again = parseFeed(expressions.join('\n'), 'expressions');
        assert.deepEqual(again.expressions, expressions);
        assert.equal(again.badLineCount, 0);
      }),
      { numRuns: 1000 },
    );
  });

  it('every web URL is an entry, the first SB-6 expression of its canonical URL', () => {
    fc.assert(
      fc.property(fc.array(fc.webUrl({ withQueryParameters: true, withFragments: true }), { minLength: 1, maxLength: 10 }), (urls) => {
        const feed = parseFeed(urls.join('\n'), 'urls');
        assert.equal(feed.badLineCount, 0);
        assert.equal(feed.entryCount, urls.length);
        assert.deepEqual(feed.expressions, [...new Set(urls.map((url) => expressionsOf(parseCanonicalUrl(url))[0]!))]);
      }),
      { numRuns: 1000 },
    );
  });
});
