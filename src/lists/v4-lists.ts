// v5 list names and the v4 lists they continue (SB-11, SB-14): v4 names a list by a triple of threat
// type, platform and threat entry type, v5 by a short name. A client fetches only the threat lists of
// SB-11 over v4; a server also answers the browsers' own triples (malicious binaries, the allowlists)
// from the v5 lists Chromium maps them to (docs/api.md "The lists each client asks for").

import type { PlatformType, ThreatEntryType, ThreatType } from '../proto/v4.ts';
import { knownList } from './known-lists.ts';
import type { ThreatTypeName } from './threat-types.ts';
import { type ErrorCode, errorCode, SbkitError } from '../sbkit-error.ts';

// The numbers of docs/api.md §2's v4 enums that name the lists, written out rather than read from the
// generated code, so that naming a list does not load the protobuf runtime (a client loads it at its
// first request). test/lists/v4-lists.test.ts holds them to the generated enums.
const MALWARE = 1 as ThreatType;
const SOCIAL_ENGINEERING = 2 as ThreatType;
const UNWANTED_SOFTWARE = 3 as ThreatType;
const POTENTIALLY_HARMFUL_APPLICATION = 4 as ThreatType;
/** Browsers' number for SOCIAL_ENGINEERING (docs/api.md §3 pitfall 3). */
const SOCIAL_ENGINEERING_INTERNAL = 5 as ThreatType;
/** Chromium's malicious binaries, v5's `mwb-4b`. */
const MALICIOUS_BINARY = 7 as ThreatType;
/** Chromium's CSD allowlist (Firefox's goog-passwordwhite-proto), v5's `csda-32b`. */
const CSD_ALLOWLIST = 8 as ThreatType;
/** Chromium's CSD download allowlist (Firefox's goog-downloadwhite-proto), v5's `csdda-32b`. */
const CSD_DOWNLOAD_ALLOWLIST = 9 as ThreatType;
/** Chromium's high-confidence allowlist, which Chromium's own v5 code fetches as `gc-32b`. */
const HIGH_CONFIDENCE_ALLOWLIST = 16 as ThreatType;
const ANDROID = 3 as PlatformType;
const ANY_PLATFORM = 6 as PlatformType;
const THREAT_ENTRY_TYPE_UNSPECIFIED = 0 as ThreatEntryType;
const URL = 1 as ThreatEntryType;

/** A v4 list: the (threat type, platform, threat entry type) triple of a ListUpdateRequest. */
export interface V4List {
  threatType: ThreatType;
  platformType: PlatformType;
  threatEntryType: ThreatEntryType;
}

/**
 * SB-11 and docs/api.md §1 "List names": the v4 triple of each v5 threat list. SOCIAL_ENGINEERING is the
 * public REST value 2; browsers' 5 is accepted in answers (v4ThreatTypeName), never sent.
 */
export const V4_LISTS = {
  'se-4b': { threatType: SOCIAL_ENGINEERING, platformType: ANY_PLATFORM, threatEntryType: URL },
  'mw-4b': { threatType: MALWARE, platformType: ANY_PLATFORM, threatEntryType: URL },
  'uws-4b': { threatType: UNWANTED_SOFTWARE, platformType: ANY_PLATFORM, threatEntryType: URL },
  'uwsa-4b': { threatType: UNWANTED_SOFTWARE, platformType: ANDROID, threatEntryType: URL },
  'pha-4b': { threatType: POTENTIALLY_HARMFUL_APPLICATION, platformType: ANDROID, threatEntryType: URL },
} as const satisfies Record<string, V4List>;

export type V4ListName = keyof typeof V4_LISTS;

/** The v5 names with a v4 list, in SB-11 order. */
export const V4_LIST_NAMES = Object.keys(V4_LISTS) as V4ListName[];

/** A v5 list with no v4 counterpart was named where only v4 lists can be served or fetched. */
export class NoV4ListError extends SbkitError {
  /** Always `"NoV4ListError"`, as logs and stack traces show it. */
  override readonly name = 'NoV4ListError';
  /** Always `SBKIT_NO_V4_LIST`. */
  override readonly code = errorCode('NO_V4_LIST');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'NO_V4_LIST'>[] = [errorCode('NO_V4_LIST')];

  constructor(
    /** The list asked for. */
    readonly listName: string,
  ) {
    super(
      `list "${listName}" has no v4 equivalent (SB-11); the v4 protocol serves ${V4_LIST_NAMES.join(', ')} ` +
        `(or ${V4_LIST_NAMES.map((name) => knownList(name)!.alias).join(', ')}); use the v5 protocol for other lists`,
    );
  }
}

/** The canonical v5 name of a list name or alias (`se` → `se-4b`); undefined when it has no v4 list. */
export function canonicalV4ListName(name: string): V4ListName | undefined {
  const canonical = knownList(name)?.name;
  return canonical !== undefined && Object.hasOwn(V4_LISTS, canonical) ? (canonical as V4ListName) : undefined;
}

/** The v4 triple of a v5 list name or alias; throws NoV4ListError for lists v4 never had (`gc-32b`). */
export function v4ListOf(name: string): V4List {
  const canonical = canonicalV4ListName(name);
  if (canonical === undefined) throw new NoV4ListError(name);
  return V4_LISTS[canonical];
}

/** The canonical v5 name of a v4 triple (browsers' SOCIAL_ENGINEERING 5 included); undefined for others. */
export function v5ListNameOf(list: V4List): V4ListName | undefined {
  const key = v4ListKey(list);
  return V4_LIST_NAMES.find((name) => v4ListKey(V4_LISTS[name]) === key);
}

/**
 * The client's name for a v4 ThreatType number, or undefined for a type the client does not know,
 * whose whole match is then ignored (as SB-8 ignores unknown details). docs/api.md §3 pitfall 3: browsers'
 * SOCIAL_ENGINEERING is 5, the public enum's is 2; both are social engineering.
 */
export function v4ThreatTypeName(threatType: number): ThreatTypeName | undefined {
  // Any number from the wire; the cases are the enum's values.
  switch (threatType as ThreatType) {
    case MALWARE:
      return 'MALWARE';
    case SOCIAL_ENGINEERING:
    case SOCIAL_ENGINEERING_INTERNAL:
      return 'SOCIAL_ENGINEERING';
    case UNWANTED_SOFTWARE:
      return 'UNWANTED_SOFTWARE';
    case POTENTIALLY_HARMFUL_APPLICATION:
      return 'POTENTIALLY_HARMFUL_APPLICATION';
    default:
      return undefined;
  }
}

/**
 * A key equal for triples that name the same list: the threat type by its client name, so that an
 * answer echoing SOCIAL_ENGINEERING as 5 matches a request that said 2; unknown types by number.
 */
export function v4ListKey(list: V4List): string {
  const threat = v4ThreatTypeName(list.threatType) ?? `#${list.threatType}`;
  return `${threat}/${list.platformType}/${list.threatEntryType}`;
}

/**
 * The browsers' v4 triples of likely-safe lists, by the v5 list that answers them: Chromium's own v5
 * names for the same lists (CSD allowlist, CSD download allowlist, high-confidence allowlist).
 */
export const V4_LIKELY_SAFE_LISTS = {
  'csda-32b': { threatType: CSD_ALLOWLIST, platformType: ANY_PLATFORM, threatEntryType: URL },
  'csdda-32b': { threatType: CSD_DOWNLOAD_ALLOWLIST, platformType: ANY_PLATFORM, threatEntryType: URL },
  'gc-32b': { threatType: HIGH_CONFIDENCE_ALLOWLIST, platformType: ANY_PLATFORM, threatEntryType: URL },
} as const satisfies Record<string, V4List>;

/**
 * The v5 list a v4 (threat type, platform, entry type) triple of a request names (SB-11, SB-14), if
 * any. Browsers ask per platform (Chromium: WINDOWS, LINUX, …); every desktop platform is the one list.
 * Chromium's malicious binaries are `mwb-4b` and its allowlists the likely-safe lists its v5 code asks
 * for instead; its other lists (billing, subresource filter, suspicious sites, extensions, API abuse)
 * have no v5 threat type, and their triples no list: a configuration may publish a list under Chromium's
 * v5 name for one (`bi-4b`, …), which its v5 code then gets, but no v4 triple is answered from it.
 */
export function listNameForV4(threatType: ThreatType, platformType: PlatformType, threatEntryType: ThreatEntryType): string | undefined {
  if (threatEntryType !== URL && threatEntryType !== THREAT_ENTRY_TYPE_UNSPECIFIED) return undefined;
  switch (threatType) {
    case MALICIOUS_BINARY:
      return 'mwb-4b';
    case CSD_ALLOWLIST:
      return 'csda-32b';
    case CSD_DOWNLOAD_ALLOWLIST:
      return 'csdda-32b';
    case HIGH_CONFIDENCE_ALLOWLIST:
      return 'gc-32b';
  }
  switch (v4ThreatTypeName(threatType)) {
    case 'MALWARE':
      return 'mw-4b';
    case 'SOCIAL_ENGINEERING':
      return 'se-4b';
    case 'UNWANTED_SOFTWARE':
      return platformType === ANDROID ? 'uwsa-4b' : 'uws-4b';
    case 'POTENTIALLY_HARMFUL_APPLICATION':
      return 'pha-4b';
    case undefined:
      return undefined;
  }
}
