import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLIENT_FORMS,
  CLIENT_LISTS,
  type ClientForm,
  clientsAskFor,
  clientsFetch,
  clientsSearchFor,
  listAnswering,
} from '../../src/lists/client-lists.ts';
import { DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, KNOWN_LISTS } from '../../src/lists/known-lists.ts';
import { V4_LISTS } from '../../src/lists/v4-lists.ts';
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

describe('the names and triples a server stands in for (SB-11)', () => {
  it("are the table's names, with the short names of their lists, and sbkit's own defaults", () => {
    for (const row of CLIENT_LISTS) if ('name' in row.asked) assert.ok(clientsAskFor(row.asked.name), row.asked.name);
    for (const name of [...DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, 'uws', 'gc', 'mwb']) assert.ok(clientsAskFor(name), name);
    // Every list a proxy may mirror, so that a proxy's batch is never refused by an sbkit upstream lacking one.
    for (const { name } of KNOWN_LISTS) assert.ok(clientsAskFor(name), name);
    for (const name of ['foo-4b', 'se-8b', 'sse-4b', 'corp-4b', 'test']) assert.equal(clientsAskFor(name), false, name);
  });

  it("are the table's triples, a browser's platform standing for each desktop one", () => {
    const url = (threatType: ThreatType, platformType: PlatformType) => ({
      threatType,
      platformType,
      threatEntryType: ThreatEntryType.URL,
    });
    for (const platform of [PlatformType.WINDOWS, PlatformType.LINUX, PlatformType.OSX]) {
      assert.ok(clientsFetch(url(ThreatType.SOCIAL_ENGINEERING_INTERNAL, platform)));
      assert.ok(clientsFetch(url(ThreatType.BILLING, platform)));
    }
    for (const name of DEFAULT_THREAT_LISTS) assert.ok(clientsFetch(V4_LISTS[name]), name);
    assert.ok(
      clientsFetch({
        threatType: ThreatType.MALWARE,
        platformType: PlatformType.CHROME,
        threatEntryType: ThreatEntryType.CHROME_EXTENSION,
      }),
    );
    for (const triple of [
      url(ThreatType.BILLING, PlatformType.ANY_PLATFORM),
      url(ThreatType.SOCIAL_ENGINEERING_INTERNAL, PlatformType.IOS),
      url(ThreatType.POTENTIALLY_HARMFUL_APPLICATION, PlatformType.ANY_PLATFORM),
      url(ThreatType.ACCURACY_TIPS, PlatformType.LINUX),
      { threatType: ThreatType.MALWARE, platformType: PlatformType.LINUX, threatEntryType: ThreatEntryType.EXECUTABLE },
    ])
      assert.equal(clientsFetch(triple), false, JSON.stringify(triple));
  });

  it('are searched for by the types of the lists clients fetch, and API abuse (pitfall 7)', () => {
    for (const type of [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 16]) assert.ok(clientsSearchFor(type), String(type));
    for (const type of [0, 10, 11, 12, 17, 99]) assert.equal(clientsSearchFor(type), false, String(type));
  });
});
