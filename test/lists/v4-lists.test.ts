import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { describeV4List } from '../../src/client/transport/transport-v4.ts';
import {
  canonicalV4ListName,
  listNameForV4,
  NoV4ListError,
  V4_LIKELY_SAFE_LISTS,
  V4_LIST_NAMES,
  type V4List,
  v4ListKey,
  v4ListOf,
  v4ThreatTypeName,
  v5ListNameOf,
} from '../../src/lists/v4-lists.ts';
import { PlatformType, ThreatEntryType, ThreatType } from '../../src/proto/v4.ts';

const triple = (threatType: number, platformType: number, threatEntryType: number = ThreatEntryType.URL): V4List => ({
  threatType,
  platformType,
  threatEntryType,
});

// SB-11 and the brief: the triple of each v5 list, by name and by alias.
const EXPECTED: Array<[string, string, V4List]> = [
  ['se-4b', 'se', triple(ThreatType.SOCIAL_ENGINEERING, PlatformType.ANY_PLATFORM)],
  ['mw-4b', 'mw', triple(ThreatType.MALWARE, PlatformType.ANY_PLATFORM)],
  ['uws-4b', 'uws', triple(ThreatType.UNWANTED_SOFTWARE, PlatformType.ANY_PLATFORM)],
  ['uwsa-4b', 'uwsa', triple(ThreatType.UNWANTED_SOFTWARE, PlatformType.ANDROID)],
  ['pha-4b', 'pha', triple(ThreatType.POTENTIALLY_HARMFUL_APPLICATION, PlatformType.ANDROID)],
];

describe('v4ListOf', () => {
  for (const [name, alias, expected] of EXPECTED) {
    it(`maps ${name} and its alias ${alias} to ${describeV4List(expected)}`, () => {
      assert.deepEqual(v4ListOf(name), expected);
      assert.deepEqual(v4ListOf(alias), expected);
      assert.equal(canonicalV4ListName(alias), name);
      assert.equal(canonicalV4ListName(name), name);
    });
  }

  it('uses the public enum numbers on the wire: SOCIAL_ENGINEERING 2, ANY_PLATFORM 6, ANDROID 3, URL 1', () => {
    assert.deepEqual(v4ListOf('se-4b'), { threatType: 2, platformType: 6, threatEntryType: 1 });
    assert.deepEqual(v4ListOf('pha'), { threatType: 4, platformType: 3, threatEntryType: 1 });
  });

  it('lists the SB-11 lists in order', () => {
    assert.deepEqual(V4_LIST_NAMES, ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b']);
  });

  for (const name of ['gc-32b', 'gc', 'mwb-4b', 'csdda-32b', 'test-4b', 'SE-4B', 'se-8b', '', 'toString', '__proto__']) {
    it(`refuses ${JSON.stringify(name)} with NoV4ListError naming the v4 lists`, () => {
      assert.equal(canonicalV4ListName(name), undefined);
      assert.throws(
        () => v4ListOf(name),
        (err: unknown) => {
          assert.ok(err instanceof NoV4ListError);
          assert.equal(err.name, 'NoV4ListError');
          assert.equal(err.listName, name);
          assert.match(err.message, new RegExp(`list "${name.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')}" has no v4 equivalent`));
          assert.match(err.message, /se-4b, mw-4b, uws-4b, uwsa-4b, pha-4b/);
          assert.match(err.message, /v5 protocol/);
          return true;
        },
      );
    });
  }

  it('refuses every other string', () => {
    const known = new Set([...V4_LIST_NAMES, 'se', 'mw', 'uws', 'uwsa', 'pha']);
    fc.assert(
      fc.property(
        fc.string().filter((s) => !known.has(s)),
        (name) => {
          assert.throws(() => v4ListOf(name), NoV4ListError);
        },
      ),
    );
  });
});

describe('v5ListNameOf', () => {
  it('inverts v4ListOf for every list', () => {
    for (const [name, alias] of EXPECTED) {
      assert.equal(v5ListNameOf(v4ListOf(name)), name);
      assert.equal(v5ListNameOf(v4ListOf(alias)), name);
    }
  });

  it("takes the browsers' SOCIAL_ENGINEERING 5 for se-4b (docs/api.md §3 pitfall 3)", () => {
    assert.equal(v5ListNameOf(triple(ThreatType.SOCIAL_ENGINEERING_INTERNAL, PlatformType.ANY_PLATFORM)), 'se-4b');
  });

  it('has no name for triples outside SB-11', () => {
    assert.equal(v5ListNameOf(triple(ThreatType.MALWARE, PlatformType.ANDROID)), undefined);
    assert.equal(v5ListNameOf(triple(ThreatType.MALWARE, PlatformType.WINDOWS)), undefined);
    assert.equal(v5ListNameOf(triple(ThreatType.MALWARE, PlatformType.ANY_PLATFORM, ThreatEntryType.EXECUTABLE)), undefined);
    assert.equal(v5ListNameOf(triple(ThreatType.MALICIOUS_BINARY, PlatformType.ANY_PLATFORM)), undefined);
    assert.equal(v5ListNameOf(triple(99, PlatformType.ANY_PLATFORM)), undefined);
  });
});

describe('listNameForV4', () => {
  const nameOf = (t: V4List) => listNameForV4(t.threatType, t.platformType, t.threatEntryType);

  it('serves every desktop platform one list, Android its own unwanted-software list', () => {
    for (const platform of [PlatformType.WINDOWS, PlatformType.LINUX, PlatformType.OSX, PlatformType.ANY_PLATFORM]) {
      assert.equal(nameOf(triple(ThreatType.SOCIAL_ENGINEERING_INTERNAL, platform)), 'se-4b');
      assert.equal(nameOf(triple(ThreatType.SOCIAL_ENGINEERING, platform)), 'se-4b');
      assert.equal(nameOf(triple(ThreatType.MALWARE, platform)), 'mw-4b');
      assert.equal(nameOf(triple(ThreatType.UNWANTED_SOFTWARE, platform)), 'uws-4b');
    }
    assert.equal(nameOf(triple(ThreatType.UNWANTED_SOFTWARE, PlatformType.ANDROID)), 'uwsa-4b');
    assert.equal(nameOf(triple(ThreatType.POTENTIALLY_HARMFUL_APPLICATION, PlatformType.ANDROID)), 'pha-4b');
  });

  it("answers the browsers' own types from the v5 lists Chromium names for them", () => {
    assert.equal(nameOf(triple(ThreatType.MALICIOUS_BINARY, PlatformType.LINUX)), 'mwb-4b');
    assert.equal(nameOf(triple(ThreatType.CSD_DOWNLOAD_ALLOWLIST, PlatformType.LINUX)), 'csdda-32b');
    assert.equal(nameOf(triple(ThreatType.CSD_ALLOWLIST, PlatformType.WINDOWS)), 'csda-32b');
    assert.equal(nameOf(triple(ThreatType.HIGH_CONFIDENCE_ALLOWLIST, PlatformType.OSX)), 'gc-32b');
    for (const [name, list] of Object.entries(V4_LIKELY_SAFE_LISTS)) assert.equal(nameOf(list), name);
  });

  it('has no list for types v5 cannot publish, nor for entries other than URLs', () => {
    for (const type of [
      ThreatType.API_ABUSE,
      ThreatType.CLIENT_INCIDENT,
      ThreatType.SUBRESOURCE_FILTER,
      ThreatType.SUSPICIOUS,
      ThreatType.BILLING,
      ThreatType.ACCURACY_TIPS,
      ThreatType.THREAT_TYPE_UNSPECIFIED,
    ]) {
      assert.equal(nameOf(triple(type, PlatformType.LINUX)), undefined, `type ${type}`);
    }
    assert.equal(nameOf(triple(ThreatType.MALWARE, PlatformType.CHROME, ThreatEntryType.CHROME_EXTENSION)), undefined);
    assert.equal(nameOf(triple(ThreatType.MALWARE, PlatformType.ANY_PLATFORM, ThreatEntryType.IP_RANGE)), undefined);
    assert.equal(nameOf(triple(ThreatType.CSD_DOWNLOAD_ALLOWLIST, PlatformType.ANY_PLATFORM, ThreatEntryType.CERT)), undefined);
  });
});

describe('v4ThreatTypeName', () => {
  it("names the public types and the browsers' SOCIAL_ENGINEERING 5", () => {
    assert.equal(v4ThreatTypeName(1), 'MALWARE');
    assert.equal(v4ThreatTypeName(2), 'SOCIAL_ENGINEERING');
    assert.equal(v4ThreatTypeName(5), 'SOCIAL_ENGINEERING');
    assert.equal(v4ThreatTypeName(3), 'UNWANTED_SOFTWARE');
    assert.equal(v4ThreatTypeName(4), 'POTENTIALLY_HARMFUL_APPLICATION');
  });

  it('knows nothing else', () => {
    fc.assert(
      fc.property(
        fc.integer().filter((n) => n < 1 || n > 5),
        (n) => {
          assert.equal(v4ThreatTypeName(n), undefined);
        },
      ),
    );
  });
});

describe('v4ListKey', () => {
  it('equates SOCIAL_ENGINEERING 2 and 5, and nothing that differs in any part', () => {
    const se = triple(2, PlatformType.ANY_PLATFORM);
    assert.equal(v4ListKey(se), v4ListKey(triple(5, PlatformType.ANY_PLATFORM)));
    assert.notEqual(v4ListKey(se), v4ListKey(triple(2, PlatformType.ANDROID)));
    assert.notEqual(v4ListKey(se), v4ListKey(triple(2, PlatformType.ANY_PLATFORM, ThreatEntryType.EXECUTABLE)));
    assert.notEqual(v4ListKey(triple(6, 6)), v4ListKey(triple(7, 6)));
  });

  it('is equal for equal triples and different otherwise, except 2 ~ 5', () => {
    const norm = (t: number) => (t === 5 ? 2 : t);
    const arbitraryTriple = fc.record({ threatType: fc.nat(20), platformType: fc.nat(10), threatEntryType: fc.nat(8) });
    fc.assert(
      fc.property(arbitraryTriple, arbitraryTriple, (a, b) => {
        const same =
          norm(a.threatType) === norm(b.threatType) && a.platformType === b.platformType && a.threatEntryType === b.threatEntryType;
        assert.equal(v4ListKey(a) === v4ListKey(b), same);
      }),
    );
  });
});

describe('describeV4List', () => {
  it('names the enum values and shows unknown ones as numbers', () => {
    assert.equal(describeV4List(v4ListOf('uwsa')), 'UNWANTED_SOFTWARE/ANDROID/URL');
    assert.equal(describeV4List(triple(5, 8, 4)), 'SOCIAL_ENGINEERING_INTERNAL/CHROME/CHROME_EXTENSION');
    assert.equal(describeV4List(triple(99, 42, 77)), '99/42/77');
  });
});
