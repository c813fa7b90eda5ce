// The kinds of things lists hold and search answers report, with the v5 enum numbers of docs/api.md §1.
// Values the client does not know make a whole FullHashDetail void (SB-8: "disregard a whole
// FullHashDetail whose ThreatType or any ThreatAttribute is unknown").

/** docs/api.md `ThreatType`: the threat lists of SB-11. */
export const THREAT_TYPES = {
  1: 'MALWARE',
  2: 'SOCIAL_ENGINEERING',
  3: 'UNWANTED_SOFTWARE',
  4: 'POTENTIALLY_HARMFUL_APPLICATION',
} as const;
/** The threat types of SB-11 and docs/api.md's `ThreatType`, by name. */
export type ThreatTypeName = (typeof THREAT_TYPES)[keyof typeof THREAT_TYPES];

/** docs/api.md `ThreatAttribute`. */
export const THREAT_ATTRIBUTES = { 1: 'CANARY', 2: 'FRAME_ONLY' } as const;
/** docs/api.md's `ThreatAttribute`: CANARY details are not to be enforced, FRAME_ONLY ones only in frames. */
export type ThreatAttributeName = (typeof THREAT_ATTRIBUTES)[keyof typeof THREAT_ATTRIBUTES];

/** docs/api.md `LikelySafeType`: GENERAL_BROWSING is the global cache (`gc-32b`), CSD and DOWNLOAD allowlists. */
export const LIKELY_SAFE_TYPES = { 1: 'GENERAL_BROWSING', 2: 'CSD', 3: 'DOWNLOAD' } as const;
export type LikelySafeTypeName = (typeof LIKELY_SAFE_TYPES)[keyof typeof LIKELY_SAFE_TYPES];
