// Web Risk's threat types and the v5 lists they are. Web Risk names a list by its threat type alone
// (one list per type, 4-byte prefixes, as v4's ANY_PLATFORM/URL lists); which list of a server answers
// which type is the server's configuration, these being the defaults. Over the wire a threat type names
// its list by an alias, `webrisk:MALWARE`, which no v5 request can spell (`:` is no list-name character).

import { knownList, WEB_RISK_THREAT_LISTS } from './known-lists.ts';
import { type ErrorCode, errorCode, SbkitError } from '../sbkit-error.ts';

// The numbers of Web Risk's ThreatType, written out rather than read from the generated code, so that
// naming a list does not load the protobuf runtime. test/lists/web-risk-lists.test.ts holds them to it.
const WEB_RISK_THREAT_TYPES = {
  1: 'MALWARE',
  2: 'SOCIAL_ENGINEERING',
  3: 'UNWANTED_SOFTWARE',
  4: 'SOCIAL_ENGINEERING_EXTENDED_COVERAGE',
} as const;

/** A Web Risk threat type by name. */
export type WebRiskThreatTypeName = (typeof WEB_RISK_THREAT_TYPES)[keyof typeof WEB_RISK_THREAT_TYPES];

/** Every Web Risk threat type, in the order of its enum. */
export const WEB_RISK_THREAT_TYPE_NAMES: readonly WebRiskThreatTypeName[] = Object.values(WEB_RISK_THREAT_TYPES);

/** Which list answers each Web Risk threat type; undefined: none, the type is not answered. */
export type WebRiskLists = Readonly<Record<WebRiskThreatTypeName, string | undefined>>;

/**
 * The v5 list of each Web Risk threat type, by default: the three that Safe Browsing shares. Google keeps
 * SOCIAL_ENGINEERING_EXTENDED_COVERAGE, a wider phishing list, for Web Risk alone; a server publishes it
 * only when configured to.
 */
export const DEFAULT_WEB_RISK_LISTS: WebRiskLists = {
  MALWARE: 'mw-4b',
  SOCIAL_ENGINEERING: 'se-4b',
  UNWANTED_SOFTWARE: 'uws-4b',
  SOCIAL_ENGINEERING_EXTENDED_COVERAGE: undefined,
};

/** The name of a Web Risk threat type's number; undefined for 0 (unspecified) and numbers Web Risk has not named. */
export function webRiskThreatTypeName(threatType: number): WebRiskThreatTypeName | undefined {
  return (WEB_RISK_THREAT_TYPES as Record<number, WebRiskThreatTypeName | undefined>)[threatType];
}

/** The number of a Web Risk threat type. */
export function webRiskThreatTypeNumber(name: WebRiskThreatTypeName): number {
  return Number(Object.entries(WEB_RISK_THREAT_TYPES).find(([, type]) => type === name)![0]);
}

const ALIAS_PREFIX = 'webrisk:';

/** The alias by which a Web Risk threat type's number names its list; undefined for no threat type. */
export function webRiskListAlias(threatType: number): string | undefined {
  const name = webRiskThreatTypeName(threatType);
  return name === undefined ? undefined : `${ALIAS_PREFIX}${name}`;
}

/** The Web Risk threat type an alias stands for; undefined for any other name. */
export function webRiskTypeOfAlias(name: string): WebRiskThreatTypeName | undefined {
  if (!name.startsWith(ALIAS_PREFIX)) return undefined;
  const type = name.slice(ALIAS_PREFIX.length);
  return WEB_RISK_THREAT_TYPE_NAMES.find((known) => known === type);
}

/** A v5 list with no Web Risk threat type was named where only Web Risk's lists can be fetched. */
export class NoWebRiskListError extends SbkitError {
  /** Always `"NoWebRiskListError"`, as logs and stack traces show it. */
  override readonly name = 'NoWebRiskListError';
  /** Always `SBKIT_NO_WEB_RISK_LIST`. */
  override readonly code = errorCode('NO_WEB_RISK_LIST');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'NO_WEB_RISK_LIST'>[] = [errorCode('NO_WEB_RISK_LIST')];

  constructor(
    /** The list asked for. */
    readonly listName: string,
  ) {
    super(
      `list "${listName}" has no Web Risk threat type; Web Risk serves ${WEB_RISK_THREAT_LISTS.join(', ')} ` +
        `(or ${WEB_RISK_THREAT_LISTS.map((name) => knownList(name)!.alias).join(', ')}); use the v5 protocol for other lists`,
    );
  }
}

/** The Web Risk threat type of a v5 list name or alias (`se` → SOCIAL_ENGINEERING); throws NoWebRiskListError for others. */
export function webRiskThreatTypeOf(name: string): WebRiskThreatTypeName {
  const canonical = knownList(name)?.name;
  const type = WEB_RISK_THREAT_TYPE_NAMES.find((t) => canonical !== undefined && DEFAULT_WEB_RISK_LISTS[t] === canonical);
  if (type === undefined) throw new NoWebRiskListError(name);
  return type;
}
