// Every list a real client asks for, by the name or the v4 triple it asks with, and the sbkit list that
// answers it (docs/api.md "The lists each client asks for", which test/docs/client-lists.test.ts holds
// to this table). A server answers each of them in the way its client tolerates: from the list when it
// publishes it, otherwise as an empty list with a version and a checksum (docs/api.md §3 pitfall 4),
// because every one of these clients fetches its lists in one request and loses them all when any fails.
// These names and triples are the only ones a server answers with such a stand-in (SB-11): any other
// that it does not publish is refused, so that a mistyped name is never kept as an empty list.

import type { PlatformType, ThreatEntryType, ThreatType } from '../proto/v4.ts';
import { canonicalListName, DEFAULT_THREAT_LISTS, GLOBAL_CACHE_LIST, knownList } from './known-lists.ts';
import { listNameForV4, V4_LISTS, type V4List } from './v4-lists.ts';

/** The clients, each with the request it fetches its lists with (docs/api.md §3 has the requests). */
export const CLIENT_FORMS = {
  'firefox-v5': 'Firefox v5',
  'firefox-v4': 'Firefox v4',
  'chromium-v4': 'Chromium v4',
  'chromium-v5': 'Chromium v5',
  'go-v4': 'Go client',
  'npm-v5': 'npm client',
  'sbkit-v5': 'sbkit v5',
  'sbkit-v4': 'sbkit v4',
} as const;

export type ClientForm = keyof typeof CLIENT_FORMS;

/** One list as one client asks for it. */
export interface ClientList {
  form: ClientForm;
  /** The client's own name for the list: a Firefox table, a Chromium store, a Go descriptor. */
  clientName: string;
  /** A v5 list name, or a v4 (threat type, platform, threat entry type) triple. */
  asked: { name: string } | { triple: V4List };
  /** When the client asks for it; undefined when it always does. */
  when: string | undefined;
  /** What the list is, or why sbkit has none for it. */
  note: string;
}

// The numbers of docs/api.md §2's v4 enums, Chromium's threat types included (pitfall 3).
const MALWARE = 1 as ThreatType;
const SOCIAL_ENGINEERING = 2 as ThreatType;
const UNWANTED_SOFTWARE = 3 as ThreatType;
const POTENTIALLY_HARMFUL_APPLICATION = 4 as ThreatType;
const SOCIAL_ENGINEERING_INTERNAL = 5 as ThreatType;
const API_ABUSE = 6 as ThreatType;
const MALICIOUS_BINARY = 7 as ThreatType;
const CSD_ALLOWLIST = 8 as ThreatType;
const CSD_DOWNLOAD_ALLOWLIST = 9 as ThreatType;
const SUBRESOURCE_FILTER = 13 as ThreatType;
const SUSPICIOUS = 14 as ThreatType;
const BILLING = 15 as ThreatType;
const HIGH_CONFIDENCE_ALLOWLIST = 16 as ThreatType;
const WINDOWS = 1 as PlatformType;
const LINUX = 2 as PlatformType;
const ANDROID = 3 as PlatformType;
const OSX = 4 as PlatformType;
const ANY_PLATFORM = 6 as PlatformType;
const CHROME = 8 as PlatformType;
const URL = 1 as ThreatEntryType;
const CHROME_EXTENSION = 4 as ThreatEntryType;

const named = (form: ClientForm, clientName: string, name: string, note: string, when?: string): ClientList => ({
  form,
  clientName,
  asked: { name },
  when,
  note,
});

const triple = (
  form: ClientForm,
  clientName: string,
  [threatType, platformType, threatEntryType]: [ThreatType, PlatformType, ThreatEntryType],
  note: string,
  when?: string,
): ClientList => ({ form, clientName, asked: { triple: { threatType, platformType, threatEntryType } }, when, note });

const ON_ANDROID = 'Android builds';
// Chromium's GetListInfos: some stores are synced on every build but iOS, some on Chrome-branded ones only.
const NOT_IOS = 'all builds but iOS';
const CHROME_BRANDED = 'Chrome-branded builds but iOS';
const CHROME_BRANDED_OR_IOS = 'Chrome-branded builds, iOS';
/** Firefox and Chromium ask with their own platform: LINUX here, WINDOWS or OSX on those systems. */
const SYSTEM_PLATFORM = LINUX;
/** The platforms SYSTEM_PLATFORM stands for: the desktop systems Firefox and Chromium run on. */
const DESKTOP_PLATFORMS: readonly PlatformType[] = [WINDOWS, LINUX, OSX];
const A_TABLE_PREF = 'named in a table pref';
// Chromium's lists v5 has no threat type for: none by default, and any configuration may publish a list
// under the name (its matches then carry the type it is configured with); no v4 triple maps to one.
const NO_V5_TYPE = 'none by default (v5 has no threat type for it): publishable under this name';
const NO_V4_LIST = 'always empty: no list answers this triple';
// sbkit's own client, and the proxy that mirrors through it, fetch these in one request unless told otherwise.
const UNLESS_LISTS_GIVEN = 'without a `lists` option';

/** Every list a real client asks for, client by client, in the order each asks. */
export const CLIENT_LISTS: readonly ClientList[] = [
  named('firefox-v5', 'goog-phish-proto', 'se-4b', 'social engineering'),
  named('firefox-v5', 'goog-malware-proto', 'mw-4b', 'malware'),
  named('firefox-v5', 'goog-unwanted-proto', 'uws-4b', 'unwanted software'),
  named('firefox-v5', 'goog-badbinurl-proto', 'mwb-4b', 'malicious binaries'),
  named('firefox-v5', 'goog-downloadwhite-proto', 'csdda-32b', 'the download allowlist'),
  named('firefox-v5', 'goog-harmful-proto', 'pha-4b', 'potentially harmful applications', ON_ANDROID),
  named('firefox-v5', 'goog-globalcache-proto', 'gc-32b', 'the global cache of likely-safe sites', A_TABLE_PREF),
  named('firefox-v5', 'test-4b', 'test-4b', 'a test table of 4-byte prefixes', A_TABLE_PREF),
  named('firefox-v5', 'test-32b', 'test-32b', 'a test table of full hashes', A_TABLE_PREF),

  triple('firefox-v4', 'goog-phish-proto', [SOCIAL_ENGINEERING_INTERNAL, SYSTEM_PLATFORM, URL], 'social engineering'),
  triple('firefox-v4', 'goog-malware-proto', [MALWARE, SYSTEM_PLATFORM, URL], 'malware'),
  triple('firefox-v4', 'goog-unwanted-proto', [UNWANTED_SOFTWARE, SYSTEM_PLATFORM, URL], 'unwanted software'),
  triple('firefox-v4', 'goog-badbinurl-proto', [MALICIOUS_BINARY, SYSTEM_PLATFORM, URL], 'malicious binaries'),
  triple('firefox-v4', 'goog-downloadwhite-proto', [CSD_DOWNLOAD_ALLOWLIST, SYSTEM_PLATFORM, URL], 'the download allowlist'),
  triple(
    'firefox-v4',
    'goog-passwordwhite-proto',
    [CSD_ALLOWLIST, SYSTEM_PLATFORM, URL],
    'the login-reputation allowlist',
    'login reputation turned on',
  ),
  triple('firefox-v4', 'googpub-phish-proto', [SOCIAL_ENGINEERING, SYSTEM_PLATFORM, URL], 'the public phishing list', A_TABLE_PREF),
  triple(
    'firefox-v4',
    'goog-harmful-proto',
    [POTENTIALLY_HARMFUL_APPLICATION, ANDROID, URL],
    'potentially harmful applications',
    ON_ANDROID,
  ),

  triple('chromium-v4', 'UrlSoceng', [SOCIAL_ENGINEERING_INTERNAL, SYSTEM_PLATFORM, URL], 'social engineering'),
  triple('chromium-v4', 'UrlMalware', [MALWARE, SYSTEM_PLATFORM, URL], 'malware'),
  triple('chromium-v4', 'UrlUws', [UNWANTED_SOFTWARE, SYSTEM_PLATFORM, URL], 'unwanted software'),
  triple('chromium-v4', 'UrlMalBin', [MALICIOUS_BINARY, SYSTEM_PLATFORM, URL], 'malicious binaries', NOT_IOS),
  triple(
    'chromium-v4',
    'ChromeExtMalware',
    [MALWARE, CHROME, CHROME_EXTENSION],
    `hashes of extension IDs, not of URLs; ${NO_V4_LIST}`,
    NOT_IOS,
  ),
  triple('chromium-v4', 'UrlBilling', [BILLING, SYSTEM_PLATFORM, URL], `billing pages; ${NO_V4_LIST}`),
  triple('chromium-v4', 'UrlCsdDownloadAllowlist', [CSD_DOWNLOAD_ALLOWLIST, SYSTEM_PLATFORM, URL], 'the download allowlist', NOT_IOS),
  triple('chromium-v4', 'UrlCsdAllowlist', [CSD_ALLOWLIST, SYSTEM_PLATFORM, URL], 'the CSD allowlist', CHROME_BRANDED_OR_IOS),
  triple(
    'chromium-v4',
    'UrlSubresourceFilter',
    [SUBRESOURCE_FILTER, SYSTEM_PLATFORM, URL],
    `abusive ad sites; ${NO_V4_LIST}`,
    CHROME_BRANDED,
  ),
  triple('chromium-v4', 'UrlSuspiciousSite', [SUSPICIOUS, SYSTEM_PLATFORM, URL], `suspicious sites; ${NO_V4_LIST}`, CHROME_BRANDED),
  triple(
    'chromium-v4',
    'UrlHighConfidenceAllowlist',
    [HIGH_CONFIDENCE_ALLOWLIST, SYSTEM_PLATFORM, URL],
    "the high-confidence allowlist, Chromium's v5 `gc-32b`",
    CHROME_BRANDED_OR_IOS,
  ),

  named('chromium-v5', 'UrlSoceng', 'se-4b', 'social engineering'),
  named('chromium-v5', 'UrlMalware', 'mw-4b', 'malware'),
  named('chromium-v5', 'UrlUws', 'uws-4b', 'unwanted software'),
  named('chromium-v5', 'UrlMalBin', 'mwb-4b', 'malicious binaries', NOT_IOS),
  named('chromium-v5', 'ChromeExtMalware', 'mcrx-16b', `hashes of extension IDs, not of URLs; ${NO_V5_TYPE}`, NOT_IOS),
  named('chromium-v5', 'UrlBilling', 'bi-4b', `billing pages; ${NO_V5_TYPE}`),
  named('chromium-v5', 'UrlCsdDownloadAllowlist', 'csdda-32b', 'the download allowlist', NOT_IOS),
  named('chromium-v5', 'UrlCsdAllowlist', 'csda-32b', 'the CSD allowlist', CHROME_BRANDED_OR_IOS),
  named('chromium-v5', 'UrlSubresourceFilter', 'srf-4b', `abusive ad sites; ${NO_V5_TYPE}`, CHROME_BRANDED),
  named('chromium-v5', 'UrlSuspiciousSite', 'sus-4b', `suspicious sites; ${NO_V5_TYPE}`, CHROME_BRANDED),
  named('chromium-v5', 'UrlHighConfidenceAllowlist', 'gc-32b', 'the high-confidence allowlist', CHROME_BRANDED_OR_IOS),

  triple('go-v4', 'DefaultThreatLists[0]', [MALWARE, ANY_PLATFORM, URL], 'malware'),
  triple('go-v4', 'DefaultThreatLists[1]', [SOCIAL_ENGINEERING, ANY_PLATFORM, URL], 'social engineering'),
  triple('go-v4', 'DefaultThreatLists[2]', [UNWANTED_SOFTWARE, ANY_PLATFORM, URL], 'unwanted software'),
  triple('go-v4', 'Config.ThreatLists', [UNWANTED_SOFTWARE, ANDROID, URL], 'unwanted software, Android', 'configured'),
  triple('go-v4', 'Config.ThreatLists', [POTENTIALLY_HARMFUL_APPLICATION, ANDROID, URL], 'potentially harmful applications', 'configured'),

  named('npm-v5', 'names: "se"', 'se', 'social engineering, by its short name'),
  named('npm-v5', 'names: "mw"', 'mw', 'malware, by its short name'),

  ...DEFAULT_THREAT_LISTS.map((name) => named('sbkit-v5', 'DEFAULT_THREAT_LISTS', name, knownList(name)!.description, UNLESS_LISTS_GIVEN)),
  named('sbkit-v5', 'GLOBAL_CACHE_LIST', GLOBAL_CACHE_LIST, knownList(GLOBAL_CACHE_LIST)!.description, 'in real-time mode'),
  ...DEFAULT_THREAT_LISTS.map((name): ClientList => ({
    form: 'sbkit-v4',
    clientName: 'DEFAULT_THREAT_LISTS',
    asked: { triple: V4_LISTS[name] },
    when: UNLESS_LISTS_GIVEN,
    note: knownList(name)!.description,
  })),
];

/**
 * The list of the catalog that answers a client's list: the list of the name (or the full name of a
 * short one), or the v5 list of a v4 triple; undefined when no list answers it, so that it is always
 * answered empty.
 */
export function listAnswering(asked: ClientList['asked']): string | undefined {
  if ('name' in asked) return canonicalListName(asked.name);
  const { threatType, platformType, threatEntryType } = asked.triple;
  return listNameForV4(threatType, platformType, threatEntryType);
}

const tripleKey = ({ threatType, platformType, threatEntryType }: V4List) => `${threatType}/${platformType}/${threatEntryType}`;

/** The full names of the v5 lists real clients ask for. */
const NAMES_ASKED: ReadonlySet<string> = new Set(
  CLIENT_LISTS.flatMap(({ asked }) => ('name' in asked ? [canonicalListName(asked.name)] : [])),
);

/** The v4 triples real clients fetch, a browser's own system spelled out as each desktop platform. */
const TRIPLES_FETCHED: ReadonlySet<string> = new Set(
  CLIENT_LISTS.flatMap(({ asked }) => {
    if (!('triple' in asked)) return [];
    const platforms = asked.triple.platformType === SYSTEM_PLATFORM ? DESKTOP_PLATFORMS : [asked.triple.platformType];
    return platforms.map((platformType) => tripleKey({ ...asked.triple, platformType }));
  }),
);

/**
 * The v4 threat types real clients name in their searches: those of the lists they fetch, and API abuse,
 * which Chromium's fullHashes:find names though it fetches no list of it (docs/api.md §3 pitfall 7).
 */
const THREAT_TYPES_SEARCHED: ReadonlySet<number> = new Set([
  ...CLIENT_LISTS.flatMap(({ asked }) => ('triple' in asked ? [asked.triple.threatType] : [])),
  API_ABUSE,
]);

/** Whether a real client asks for the v5 list of this name, or of the list it is the short name of (`se`). */
export function clientsAskFor(name: string): boolean {
  return NAMES_ASKED.has(canonicalListName(name));
}

/** Whether a real client fetches this v4 triple, on any desktop system for the browsers' own. */
export function clientsFetch(triple: V4List): boolean {
  return TRIPLES_FETCHED.has(tripleKey(triple));
}

/** Whether real clients name this v4 threat type in a `fullHashes:find` or `threatMatches:find`. */
export function clientsSearchFor(threatType: ThreatType): boolean {
  return THREAT_TYPES_SEARCHED.has(threatType);
}
