import type { HashWidth } from '../../lists/list-name.ts';
import type { LikelySafeTypeName, ThreatTypeName } from '../../lists/threat-types.ts';

/**
 * What a served list is, as ListHashLists describes it (docs/api.md HashListMetadata). A list holds full
 * hashes and serves their first `hashLength` bytes (SB-9, SB-11). Threat types and likely-safe types are
 * mutually exclusive (docs/api.md): a threat list has threat types, an allowlist likely-safe types.
 */
export interface ListDefinition {
  /** The v5 name clients ask for, e.g. `se-4b` or `gc-32b` (SB-11, docs/api.md §3). Never changes. */
  name: string;
  /** Bytes per served hash (docs/api.md HashListMetadata.HashLength: exactly one per list). */
  hashLength: HashWidth;
  threatTypes: ThreatTypeName[];
  likelySafeTypes: LikelySafeTypeName[];
  /** English, for ListHashLists. */
  description: string;
}
