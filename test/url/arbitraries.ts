import fc from 'fast-check';

/** Pieces that exercise every SB-5 rule: escapes, dots, slashes, brackets, user info, ports, IDN bytes. */
const TRICKY_PIECES = [
  '%',
  '%25',
  '%2',
  '%32',
  '%35',
  '%2e',
  '%2E',
  '%2F',
  '%40',
  '%3F',
  '%23',
  '%5C',
  '%00',
  '%80',
  '%C3%BC',
  '%ZZ',
  '.',
  '..',
  '/',
  '//',
  '\\',
  '?',
  '#',
  '@',
  ':',
  '[',
  ']',
  '::',
  '0x',
  '0',
  '1',
  '255',
  '256',
  '4294967295',
  'ffff',
  '64:ff9b',
  'a',
  'B',
  'xn--',
  'ü',
  '中',
  ' ',
  '\t',
  '\n',
  '\u0000',
  '\u007f',
  'http://',
  'https://',
  'ftp:',
];

/** URL-shaped strings made of tricky pieces. */
export const hostileUrl = fc
  .tuple(
    fc.constantFrom('', 'http://', 'https://', 'HTTP://', '//', 'http:', 'http:\\\\'),
    fc.array(fc.constantFrom(...TRICKY_PIECES), { maxLength: 24 }),
  )
  .map(([scheme, pieces]) => scheme + pieces.join(''));

/** Plausible URLs: a real-looking host (names, IPv4 forms, IPv6), then a path with tricky pieces. */
export const urlLike = fc
  .tuple(
    fc.constantFrom('http://', 'https://', ''),
    fc.oneof(
      fc.domain(),
      fc.ipV4(),
      fc.ipV4Extended(),
      fc.ipV6().map((ip) => `[${ip}]`),
      fc.constantFrom('a.b.c.d.e.f.g.example.com', 'example.co.uk', 'user.github.io', 'localhost'),
    ),
    fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined }),
    fc.array(fc.constantFrom(...TRICKY_PIECES, 'dir', 'file.html', '/x/', '?q=1', '&r=2'), { maxLength: 16 }),
  )
  .map(([scheme, host, port, path]) => `${scheme}${host}${port === undefined ? '' : `:${port}`}/${path.join('')}`);
