// Which list of this server a full hash found by a search is answered as, where a protocol tells apart
// lists of one v5 threat type (v4 uws-4b from uwsa-4b by platform and mw-4b from mwb-4b by its own type,
// Web Risk a type's mapped list from the others). The source's details say the threat type; the lists'
// copies say which list, when one here holds the hash. A proxy's source knows more than its copies: what
// was listed since the last copy or before the first, and what only Google's real-time search knows.

import type { ThreatTypeName } from '../../lists/threat-types.ts';
import type { ListCatalog } from '../catalog.ts';
import type { ListDefinition } from '../lists/list-definition.ts';

/** The threat lists whose current snapshot holds `fullHash`: the hash itself, or for a mirrored list its prefix. */
export function listsHolding(catalog: ListCatalog, fullHash: string): ListDefinition[] {
  return catalog
    .threatSnapshots()
    .filter(({ snapshot }) => snapshot.serves(fullHash))
    .map(({ definition }) => definition);
}

/** How a protocol names one of its lists of a threat type. */
export interface TypedList {
  /** The list's name in the catalog. */
  name: string;
  /** The threat type its hashes have. */
  type: ThreatTypeName;
  /** Whether it is where the type goes when no list here says otherwise: the one list of the type a search by type alone means. */
  ofTypeAlone: boolean;
}

/**
 * Whether a full hash that the source names with `list.type` is answered as `list`'s, `holding` being the
 * lists here that hold it: when that list holds it under the type; else, when the list is its type's by
 * itself and none of the rivals holds the hash under the type (which would make it theirs: uwsa-4b's,
 * not uws-4b's). What no rival holds is known by its type alone: from a list the protocol does not tell
 * apart (an operator's own, for v4), or from the source alone (an upstream), whose threat type is then
 * all there is to go by; it is never taken for SAFE because a copy here lacks it.
 */
export function isListedIn(list: TypedList, holding: readonly ListDefinition[], isRival: (name: string) => boolean): boolean {
  const ofType = holding.filter((held) => held.threatTypes.includes(list.type));
  if (ofType.some((held) => held.name === list.name)) return true;
  return list.ofTypeAlone && !ofType.some((held) => isRival(held.name));
}
