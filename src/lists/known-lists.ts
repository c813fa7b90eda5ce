// The lists sbkit knows by name (SB-11, docs/api.md §1 "List names"): what each holds, its width, its
// description, and the short name of the v5 overview that clients may use for it. A server may publish
// lists of any other name too; these are the ones real clients ask for.

import type { HashWidth } from './list-name.ts';
import type { LikelySafeTypeName, ThreatTypeName } from './threat-types.ts';

export interface KnownList {
  /** The v5 name, e.g. `se-4b`. */
  name: string;
  /** The short name of the v5 overview (`se`), accepted for the full one. */
  alias: string | undefined;
  width: HashWidth;
  /** What it holds: threats of one type, or likely-safe expressions (the global cache, allowlists). */
  holds: { threatType: ThreatTypeName } | { likelySafeType: LikelySafeTypeName };
  /** In English, for ListHashLists. */
  description: string;
}

export const KNOWN_LISTS: readonly KnownList[] = [
  { name: 'se-4b', alias: 'se', width: 4, holds: { threatType: 'SOCIAL_ENGINEERING' }, description: 'social engineering' },
  { name: 'mw-4b', alias: 'mw', width: 4, holds: { threatType: 'MALWARE' }, description: 'malware, desktop platforms' },
  {
    name: 'uws-4b',
    alias: 'uws',
    width: 4,
    holds: { threatType: 'UNWANTED_SOFTWARE' },
    description: 'unwanted software, desktop platforms',
  },
  { name: 'uwsa-4b', alias: 'uwsa', width: 4, holds: { threatType: 'UNWANTED_SOFTWARE' }, description: 'unwanted software, Android' },
  {
    name: 'pha-4b',
    alias: 'pha',
    width: 4,
    holds: { threatType: 'POTENTIALLY_HARMFUL_APPLICATION' },
    description: 'potentially harmful applications, Android',
  },
  { name: 'mwb-4b', alias: 'mwb', width: 4, holds: { threatType: 'MALWARE' }, description: 'malicious binaries' },
  { name: 'csdda-32b', alias: undefined, width: 32, holds: { likelySafeType: 'DOWNLOAD' }, description: 'downloads known to be safe' },
  {
    name: 'csda-32b',
    alias: undefined,
    width: 32,
    holds: { likelySafeType: 'CSD' },
    description: 'pages client-side phishing detection need not examine',
  },
  {
    name: 'gc-32b',
    alias: 'gc',
    width: 32,
    holds: { likelySafeType: 'GENERAL_BROWSING' },
    description: 'the global cache of likely safe sites',
  },
];

/** SB-11 threat lists as real v5 clients name them: what a client keeps by default. */
export const DEFAULT_THREAT_LISTS = ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b'] as const;
/**
 * The threat lists Web Risk has, one per threat type it shares with Safe Browsing (DEFAULT_WEB_RISK_LISTS
 * of web-risk-lists.ts, which a test holds them to): what a Web Risk client keeps by default.
 */
export const WEB_RISK_THREAT_LISTS = ['se-4b', 'mw-4b', 'uws-4b'] as const;
/** The global cache of likely-safe expressions (SB-4), kept in real-time mode only. */
export const GLOBAL_CACHE_LIST = 'gc-32b';

const BY_NAME = new Map(
  KNOWN_LISTS.flatMap((list) => [[list.name, list] as const, ...(list.alias === undefined ? [] : [[list.alias, list] as const])]),
);

/** The known list of a name or alias; undefined for any other name. */
export function knownList(nameOrAlias: string): KnownList | undefined {
  return BY_NAME.get(nameOrAlias);
}

/** The full name of a known list's alias (`se` → `se-4b`); any other name as it is. */
export function canonicalListName(nameOrAlias: string): string {
  return BY_NAME.get(nameOrAlias)?.name ?? nameOrAlias;
}
