// The lookup of the web page: a URL's expressions (SB-6), their full hashes searched in the server's
// own source of full hashes (its lists, or its upstream), and which expressions matched which threats.

import { isEnforced } from '../../lists/threat-details.ts';
import { type ThreatTypeName } from '../../lists/threat-types.ts';
import { formatCanonicalUrl, parseCanonicalUrl } from '../../url/canonicalize.ts';
import { expressionsOf } from '../../url/expressions.ts';
import { expressionHashString, prefix32 } from '../../url/hash.ts';
import type { FullHashSource } from '../api/full-hash-source.ts';

export interface LookupResult {
  url: string;
  canonical: string;
  /** UNSAFE when an expression is listed under a threat that applies to a page opened at the top level. */
  verdict: 'SAFE' | 'UNSAFE';
  threats: { threatType: ThreatTypeName; expressions: string[] }[];
}

/** Looks a URL up; throws InvalidUrlError for input that is no usable URL, and what the source throws. */
export async function lookUp(source: FullHashSource, url: string): Promise<LookupResult> {
  const parsed = parseCanonicalUrl(url);
  const canonical = formatCanonicalUrl(parsed);
  const expressions = expressionsOf(parsed);
  const byHash = new Map(expressions.map((expression) => [expressionHashString(expression), expression]));
  const answer = await source.find([...byHash.keys()].map(prefix32));
  const threats = new Map<ThreatTypeName, Set<string>>();
  for (const match of answer.fullHashes) {
    const expression = byHash.get(match.fullHash);
    if (expression === undefined) continue;
    // A page opened in the address bar: CANARY and FRAME_ONLY details are not acted on (docs/api.md).
    for (const detail of match.details.filter((d) => isEnforced(d, false))) {
      const set = threats.get(detail.threatType) ?? new Set<string>();
      set.add(expression);
      threats.set(detail.threatType, set);
    }
  }
  const listed = [...threats].map(([threatType, found]) => ({ threatType, expressions: expressions.filter((e) => found.has(e)) }));
  return { url, canonical, verdict: listed.length > 0 ? 'UNSAFE' : 'SAFE', threats: listed };
}
