// Threat details of full hashes, the words client and server both speak: what a search answer says of
// a full hash (the known details only, SB-8), and whether each detail is acted on (docs/api.md §1
// ThreatAttribute). The client caches and checks with them; the server answers and proxies them.

import { THREAT_ATTRIBUTES, type ThreatAttributeName, THREAT_TYPES, type ThreatTypeName } from './threat-types.ts';

/** One FullHashDetail of a search answer: a threat type and its attributes. */
export interface ThreatDetail {
  /** What the server says the threat is. */
  threatType: ThreatTypeName;
  /** CANARY and FRAME_ONLY, when set. */
  attributes: ThreatAttributeName[];
}

/** A full hash a server knows, with its threat details, in the public form of a full hash (hex). */
export interface FullHash {
  /** SHA-256 of an expression, as 64 lower-case hex digits (the public form of a full hash). */
  fullHash: string;
  /** The threat details the client knows (unknown ones are dropped, SB-8). */
  details: ThreatDetail[];
}

/**
 * A full hash of a search answer inside sbkit (the client's cache, the server's answers): the 32 bytes
 * as a byte string, the lookup path's form (url/hash.ts), and its usable details.
 */
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
    // Each once: a detail cannot grow with a server's repetitions.
    if (!names.includes(name)) names.push(name);
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
