import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import { parseLists } from '../../../src/server/config/config-lists.ts';
import { assertRefused, BASE, exampleLists } from './config-fixture.ts';

describe('parseLists', () => {
  it('gives each list its typed form, its width from its name, its sources read (config-sources.ts)', () => {
    const [se, gc] = parseLists(exampleLists(), BASE);
    assert.deepEqual(
      { ...se!, sources: se!.sources.map((source) => source.kind) },
      {
        name: 'se-4b',
        threatTypes: ['SOCIAL_ENGINEERING'],
        likelySafeTypes: [],
        hashLength: 4,
        description: 'phishing',
        sources: ['file', 'url', 'entries'],
      },
    );
    assert.deepEqual([gc!.threatTypes, gc!.likelySafeTypes, gc!.hashLength, gc!.description], [[], ['GENERAL_BROWSING'], 32, '']);
    assert.equal(gc!.sources[0]!.kind === 'file' && gc!.sources[0]!.path, '/data/top.csv');
  });

  it('takes no lists as none, and a list without width suffix as 4 bytes', () => {
    assert.deepEqual(parseLists(undefined, BASE), []);
    assert.equal(parseLists([{ name: 'mine', threatTypes: ['MALWARE'], sources: [] }], BASE)[0]!.hashLength, 4);
  });

  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access -- each edit breaks one field of arbitrary JSON */
  type Edit = (lists: any[]) => void;
  const errors: [string, Edit, string, RegExp][] = [
    ['a misspelt list field', (l) => (l[0]!.threatType = ['MALWARE']), 'lists[0].threatType', /not a known setting/],
    ['a list that is no object', (l) => (l[1] = 'gc-32b'), 'lists[1]', /must be an object/],
    ['a list name with a colon', (l) => (l[0]!.name = 'se:4b'), 'lists[0].name', /not a list name/],
    ['a list name with a slash', (l) => (l[1]!.name = 'gc/32b'), 'lists[1].name', /not a list name/],
    ['a list without name', (l) => delete l[0]!.name, 'lists[0].name', /must be a list name such as se-4b, not undefined/],
    ['a repeated list name', (l) => (l[1]!.name = 'se-4b'), 'lists[1].name', /unique/],
    ['both kinds of types', (l) => (l[0]!.likelySafeTypes = ['CSD']), 'lists[0]', /exactly one of threatTypes/],
    ['neither kind of types', (l) => delete l[1]!.likelySafeTypes, 'lists[1]', /exactly one of threatTypes/],
    ['an unknown threat type', (l) => (l[0]!.threatTypes = ['PHISHING']), 'lists[0].threatTypes[0]', /MALWARE, SOCIAL_ENGINEERING/],
    ['a repeated threat type', (l) => (l[0]!.threatTypes = ['MALWARE', 'MALWARE']), 'lists[0].threatTypes[1]', /repeats/],
    ['no threat type', (l) => (l[0]!.threatTypes = []), 'lists[0].threatTypes', /at least one/],
    [
      'a threat type as likely-safe type',
      (l) => (l[1]!.likelySafeTypes = ['MALWARE']),
      'lists[1].likelySafeTypes[0]',
      /GENERAL_BROWSING, CSD, DOWNLOAD/,
    ],
    ['an odd hash length', (l) => (l[1]!.hashLength = 20), 'lists[1].hashLength', /one of 4, 8, 16, 32/],
    ['a hash length the name contradicts', (l) => (l[1]!.hashLength = 4), 'lists[1].hashLength', /name gc-32b says 32 bytes/],
    ['an empty description', (l) => (l[0]!.description = ''), 'lists[0].description', /non-empty string/],
    ['no sources array', (l) => delete l[0]!.sources, 'lists[0].sources', /must be an array/],
    ['a bad source, named where it stands', (l) => (l[0]!.sources[2].format = 'json'), 'lists[0].sources[2].format', /expressions/],
  ];
  /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access */
  for (const [name, edit, field, message] of errors) {
    it(`names the field of ${name}`, () => {
      const value = exampleLists();
      edit(value);
      assertRefused(() => parseLists(value, BASE), field, message);
    });
  }

  it('refuses lists that are no array', () => {
    assert.throws(
      () => parseLists('x', BASE),
      (error: unknown) => error instanceof ConfigError && error.field === 'lists' && /must be an array/.test(error.message),
    );
  });
});
