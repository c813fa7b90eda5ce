/**
 * Threat details as the client keeps them, with the v5 enum numbers of docs/api.md. Values the client does
 * not know make a whole FullHashDetail void (SB-8, docs/api.md: "disregard a whole FullHashDetail whose
 * ThreatType or any ThreatAttribute is unknown").
 */
export const THREAT_TYPES = {
  1: 'MALWARE',
  2: 'SOCIAL_ENGINEERING',
  3: 'UNWANTED_SOFTWARE',
  4: 'POTENTIALLY_HARMFUL_APPLICATION',
} as const;
/** The threat types of SB-11 and docs/api.md's `ThreatType`, by name. */
export type ThreatTypeName = (typeof THREAT_TYPES)[keyof typeof THREAT_TYPES];

export const THREAT_ATTRIBUTES = { 1: 'CANARY', 2: 'FRAME_ONLY' } as const;
/** docs/api.md's `ThreatAttribute`: CANARY details are not to be enforced, FRAME_ONLY ones only in frames. */
export type ThreatAttributeName = (typeof THREAT_ATTRIBUTES)[keyof typeof THREAT_ATTRIBUTES];

/** One FullHashDetail of a search answer: a threat type and its attributes. */
export interface ThreatDetail {
  /** What the server says the threat is. */
  threatType: ThreatTypeName;
  /** CANARY and FRAME_ONLY, when set. */
  attributes: ThreatAttributeName[];
}

/** A full hash of a search response: 32 bytes as a byte string (url/hash.ts) and its usable details. */
export interface FullHashMatch {
  /** The 32 hash bytes as a 32-character byte string (latin1). */
  fullHash: string;
  /** The threat details the client knows (unknown ones are dropped, SB-8). */
  details: ThreatDetail[];
  /** v4 only: how long this match may be cached, when it differs from the response's duration. */
  cacheDurationMs?: number | undefined;
}

/** The usable detail of a wire FullHashDetail, or undefined when any of its enum values is unknown. */
export function knownDetail(threatType: number, attributes: readonly number[]): ThreatDetail | undefined {
  const type = THREAT_TYPES[threatType as keyof typeof THREAT_TYPES];
  if (type === undefined) return undefined;
  const names: ThreatAttributeName[] = [];
  for (const attribute of attributes) {
    const name = THREAT_ATTRIBUTES[attribute as keyof typeof THREAT_ATTRIBUTES];
    if (name === undefined) return undefined;
    names.push(name);
  }
  return { threatType: type, attributes: names };
}

/**
 * docs/api.md ThreatAttribute: CANARY "should not be used for enforcement", FRAME_ONLY "only be used for
 * enforcement on frames". A detail is acted on unless one of those says otherwise.
 */
export function isEnforced(detail: ThreatDetail, inFrame: boolean): boolean {
  if (detail.attributes.includes('CANARY')) return false;
  return inFrame || !detail.attributes.includes('FRAME_ONLY');
}
