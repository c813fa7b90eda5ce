import { create, type Message } from '@bufbuild/protobuf';
import { EmptySchema } from '@bufbuild/protobuf/wkt';
import type { RpcCall } from '../../wire/rest/routes.ts';
import type { ListCatalog } from '../catalog.ts';
import type { FullHashSource } from './full-hash-source.ts';
import type { ApiSettings } from './settings.ts';
import * as v4 from './v4.ts';
import * as v5 from './v5.ts';

/** RPCs whose answers are list data, which caching proxies may keep a while (SB-11). */
export const LIST_RPCS: ReadonlySet<RpcCall['rpc']> = new Set([
  'GetHashList',
  'BatchGetHashLists',
  'ListHashLists',
  'FetchThreatListUpdates',
  'ListThreatLists',
]);

/** Answers one decoded API call at `now` (wall time, ms; list waits depend on it): lists from the catalog, full hashes from the source. */
export async function answerCall(
  catalog: ListCatalog,
  source: FullHashSource,
  call: RpcCall,
  settings: ApiSettings,
  now: number,
): Promise<Message> {
  switch (call.rpc) {
    case 'SearchHashes':
      return v5.searchHashes(source, call.request);
    case 'GetHashList':
      return v5.getHashList(catalog, call.request, settings, now);
    case 'BatchGetHashLists':
      return v5.batchGetHashLists(catalog, call.request, settings, now);
    case 'ListHashLists':
      return v5.listHashLists(catalog, call.request);
    case 'SearchUrls':
      return v5.searchUrls(source, call.request, settings);
    case 'FetchThreatListUpdates':
      return v4.fetchThreatListUpdates(catalog, call.request, settings, now);
    case 'FindFullHashes':
      return v4.findFullHashes(catalog, source, call.request);
    case 'FindThreatMatches':
      return v4.findThreatMatches(catalog, source, call.request, settings);
    case 'ListThreatLists':
      return v4.listThreatLists(catalog);
    case 'CreateThreatHit':
      // Firefox reports hits only when data sharing is on; they are acknowledged and not kept.
      return create(EmptySchema);
  }
}
