import { checksumOf } from '../../store/hash-list.ts';

/**
 * How a list the server does not publish is answered where clients ask for fixed sets of lists (v4
 * triples, Firefox's v5 batch): as an empty list, with a version and a checksum all the same, since
 * Firefox rejects an answer without state and the Go client one without checksum (docs/api.md §3 pitfall 4).
 */
export const NO_LIST_VERSION = new TextEncoder().encode('sbkit:no-such-list');
export const EMPTY_LIST_CHECKSUM = checksumOf({ width: 4, values: new Uint32Array(0) });
