import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLIENT_FORMS, CLIENT_LISTS, type ClientForm, listAnswering } from '../../src/lists/client-lists.ts';
import { knownList } from '../../src/lists/known-lists.ts';
import { listNameProblem, widthOfListName } from '../../src/lists/list-name.ts';
import { PlatformType, ThreatEntryType, ThreatType } from '../../src/proto/v4.ts';

const rows = (form: ClientForm) => CLIENT_LISTS.filter((row) => row.form === form);
const askedKey = (asked: (typeof CLIENT_LISTS)[number]['asked']) =>
  'name' in asked ? asked.name : `${asked.triple.threatType}/${asked.triple.platformType}/${asked.triple.threatEntryType}`;

describe('CLIENT_LISTS', () => {
  it('has rows for every client form, each list once per form', () => {
    for (const form of Object.keys(CLIENT_FORMS) as ClientForm[]) {
      const asked = rows(form).map((row) => askedKey(row.asked));
      assert.ok(asked.length > 0, form);
      assert.equal(new Set(asked).size, asked.length, `${form} names a list twice`);
    }
  });

  it('names lists by valid names, which state their width or are short names of known lists', () => {
    for (const row of CLIENT_LISTS) {
      if (!('name' in row.asked)) continue;
      const { name } = row.asked;
      assert.equal(listNameProblem(name), undefined, name);
      assert.ok(widthOfListName(name) !== undefined || knownList(name) !== undefined, name);
    }
  });

  it('answers only from lists sbkit knows, so that an operator can publish each', () => {
    for (const row of CLIENT_LISTS) {
      const list = listAnswering(row.asked);
      if (list !== undefined && 'triple' in row.asked) assert.ok(knownList(list) !== undefined, `${row.clientName}: ${list}`);
    }
  });

  it("answers a Firefox table from the same list over v5 and v4 (docs/api.md §3's table of Firefox's tables)", () => {
    const firefoxTables = new Map([
      ['goog-phish-proto', 'se-4b'],
      ['goog-malware-proto', 'mw-4b'],
      ['goog-unwanted-proto', 'uws-4b'],
      ['goog-harmful-proto', 'pha-4b'],
      ['goog-badbinurl-proto', 'mwb-4b'],
      ['goog-downloadwhite-proto', 'csdda-32b'],
      ['goog-globalcache-proto', 'gc-32b'],
      ['test-4b', 'test-4b'],
      ['test-32b', 'test-32b'],
    ]);
    for (const row of [...rows('firefox-v5'), ...rows('firefox-v4')]) {
      const expected = firefoxTables.get(row.clientName);
      if (expected !== undefined) assert.equal(listAnswering(row.asked), expected, `${row.form} ${row.clientName}`);
    }
    // Every table of docs/api.md §3 is one Firefox's v5 provider asks for, and no other.
    assert.deepEqual(
      rows('firefox-v5')
        .map((row) => row.clientName)
        .sort(),
      [...firefoxTables.keys()].sort(),
    );
    assert.equal(listAnswering(rows('firefox-v4').find((row) => row.clientName === 'googpub-phish-proto')!.asked), 'se-4b');
  });

  it('answers a Chromium store over v4 from the list its v5 code names, where sbkit knows that list', () => {
    const v5Names = new Map(rows('chromium-v5').map((row) => [row.clientName, listAnswering(row.asked)!]));
    assert.deepEqual(
      [...v5Names.keys()],
      rows('chromium-v4').map((row) => row.clientName),
    );
    for (const row of rows('chromium-v4')) {
      const v5Name = v5Names.get(row.clientName)!;
      assert.equal(listAnswering(row.asked), knownList(v5Name) === undefined ? undefined : v5Name, row.clientName);
    }
  });

  it('takes short names for their lists, and triples by the server mapping', () => {
    assert.equal(listAnswering({ name: 'se' }), 'se-4b');
    assert.equal(listAnswering({ name: 'nope-4b' }), 'nope-4b');
    assert.equal(
      listAnswering({
        triple: { threatType: ThreatType.BILLING, platformType: PlatformType.WINDOWS, threatEntryType: ThreatEntryType.URL },
      }),
      undefined,
    );
    assert.equal(
      listAnswering({
        triple: { threatType: ThreatType.UNWANTED_SOFTWARE, platformType: PlatformType.ANDROID, threatEntryType: ThreatEntryType.URL },
      }),
      'uwsa-4b',
    );
  });
});
