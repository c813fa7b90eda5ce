import { expressionHashBytes } from '../url/hash.ts';
import { ListCatalog } from './catalog.ts';
import type { ListDefinition } from './lists/list-definition.ts';
import { ListHistory } from './lists/list-history.ts';

/**
 * The embedded demo data set of `sbkit serve` with no configuration: Google's public test pages, the
 * test pages Firefox ships links to, and sample entries under the reserved `.example` domain, so that
 * browsers and clients can be tried against a local server with nothing to set up.
 */
interface DemoList {
  definition: ListDefinition;
  expressions: string[];
}

const GOOGLE_TEST = 'testsafebrowsing.appspot.com';

/** A page of the demo's phishing list: a check of it answers UNSAFE. */
export const DEMO_LISTED_URL = `http://${GOOGLE_TEST}/s/phishing.html`;

function threatList(name: string, threatType: ListDefinition['threatTypes'][number], description: string, expressions: string[]): DemoList {
  return { definition: { name, hashLength: 4, threatTypes: [threatType], likelySafeTypes: [], description }, expressions };
}

const DEMO_LISTS: readonly DemoList[] = [
  threatList('se-4b', 'SOCIAL_ENGINEERING', 'demo: suspected phishing and social engineering pages', [
    `${GOOGLE_TEST}/s/phishing.html`,
    `${GOOGLE_TEST}/apiv4/ANY_PLATFORM/SOCIAL_ENGINEERING/URL/`,
    'itisatrap.org/firefox/its-a-trap.html',
    'phishing.sbtest.example/',
  ]),
  threatList('mw-4b', 'MALWARE', 'demo: pages suspected to serve malware', [
    `${GOOGLE_TEST}/s/malware.html`,
    `${GOOGLE_TEST}/s/malware_in_iframe.html`,
    `${GOOGLE_TEST}/apiv4/ANY_PLATFORM/MALWARE/URL/`,
    'itisatrap.org/firefox/its-an-attack.html',
    'malware.sbtest.example/',
  ]),
  threatList('uws-4b', 'UNWANTED_SOFTWARE', 'demo: pages suspected to serve unwanted software', [
    `${GOOGLE_TEST}/s/unwanted.html`,
    `${GOOGLE_TEST}/apiv4/ANY_PLATFORM/UNWANTED_SOFTWARE/URL/`,
    'itisatrap.org/firefox/unwanted.html',
    'unwanted.sbtest.example/',
  ]),
  threatList('uwsa-4b', 'UNWANTED_SOFTWARE', 'demo: unwanted software for Android', [
    `${GOOGLE_TEST}/apiv4/ANDROID/UNWANTED_SOFTWARE/URL/`,
    'unwanted-android.sbtest.example/',
  ]),
  threatList('pha-4b', 'POTENTIALLY_HARMFUL_APPLICATION', 'demo: potentially harmful applications for Android', [
    `${GOOGLE_TEST}/apiv4/ANDROID/POTENTIALLY_HARMFUL_APPLICATION/URL/`,
    'itisatrap.org/firefox/harmful.html',
    'harmful.sbtest.example/',
  ]),
  // Firefox's v5 update always asks for mwb-4b and csdda-32b too (docs/firefox.md).
  threatList('mwb-4b', 'MALWARE', 'demo: malicious binaries', ['malicious-binary.sbtest.example/download.exe']),
  {
    definition: {
      name: 'csdda-32b',
      hashLength: 32,
      threatTypes: [],
      likelySafeTypes: ['DOWNLOAD'],
      description: 'demo: the download allowlist',
    },
    expressions: ['downloads.sbtest.example/'],
  },
  {
    definition: {
      name: 'gc-32b',
      hashLength: 32,
      threatTypes: [],
      likelySafeTypes: ['GENERAL_BROWSING'],
      description: 'demo: the global cache of likely safe sites',
    },
    expressions: ['example.com/', 'example.org/', 'example.net/', 'safe.sbtest.example/'],
  },
  // Chromium's v4 CSD allowlist is answered from csda-32b (docs/api.md "The lists each client asks for").
  {
    definition: {
      name: 'csda-32b',
      hashLength: 32,
      threatTypes: [],
      likelySafeTypes: ['CSD'],
      description: 'demo: pages client-side phishing detection need not examine',
    },
    expressions: ['login.sbtest.example/'],
  },
];

/**
 * The embedded default that `sbkit serve` serves with no configuration: Google's public test pages
 * (`testsafebrowsing.appspot.com/s/…`) and sample entries in every SB-11 list, each published once.
 */
export function demoCatalog(): ListCatalog {
  return new ListCatalog(
    DEMO_LISTS.map((list) => {
      const history = new ListHistory(list.definition, { keep: 10 });
      history.publish(Buffer.concat(list.expressions.map((expression) => expressionHashBytes(expression))));
      return history;
    }),
  );
}
