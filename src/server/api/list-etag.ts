// The strong ETag of a list answer (v5 hashList and hashLists:batchGet, v4 threatListUpdates:fetch),
// derived from what determines the answer's bytes rather than from the bytes: a cache revalidating an
// entry then costs the server a few hundred bytes of SHA-256 and a 304, not the diff, its Rice coding
// and its encoding.
//
// What the bytes of a list answer depend on, and so what goes into the tag:
// - the RPC and the encoding chosen for the answer (wire/encoding.ts);
// - the names asked for, as the answer echoes them, and for each the list's kept snapshots, oldest
//   first, the current one last. Snapshot ids are derived from the list's name, hash length and
//   content (lists/snapshot.ts), so they name the lists diffs are computed between; which of the
//   client's versions a history recognizes (and so whether it gets a diff or the whole list, SB-9)
//   depends on nothing else. A name this server does not publish is marked as such;
// - the client's versions or v4 states, as sent, and its size constraints (lists/list-history.ts);
//   for v4 also the triple it echoes and whether it reads Rice coding;
// - the minimum wait sent with complete updates (SB-12).
// The threat types, description and anything else of a list definition appear in no list answer. A
// property test (test/server/api/list-etag.test.ts) checks that equal tags always come with equal bytes.

import { createHash, type Hash } from 'node:crypto';
import { listNameForV4 } from '../../lists/v4-lists.ts';
import { CompressionType } from '../../proto/v4.ts';
import type { WireEncoding } from '../../wire/encoding.ts';
import type { RpcCall } from '../../wire/routes.ts';
import type { ListCatalog } from '../catalog.ts';
import type { ListHistory } from '../lists/list-history.ts';
import type { ApiSettings } from './settings.ts';

/** Changed whenever what the tag covers changes, so that no tag of an older derivation matches a newer answer. */
const DERIVATION = 'sbkit list answer 1';
/** 128 bits of SHA-256: collisions are out of reach, and the header stays short. */
const TAG_BYTES = 16;

/** The inputs, each framed by its length so that no two different sequences hash alike. */
class Determinants {
  private readonly hash: Hash = createHash('sha256');

  add(value: string | number | Uint8Array): this {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : typeof value === 'number' ? Buffer.from(String(value)) : value;
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.byteLength);
    this.hash.update(length).update(bytes);
    return this;
  }

  /** A list's served versions: its kept snapshots, oldest first, the current one last; or none. */
  addList(history: ListHistory | undefined): this {
    if (history === undefined) return this.add('absent');
    const ids = history.keptIds();
    this.add(ids.length);
    for (const id of ids) this.add(id);
    return this;
  }

  /** A strong entity tag: quoted, not `W/`. */
  tag(): string {
    return `"${this.hash.digest().subarray(0, TAG_BYTES).toString('base64url')}"`;
  }
}

function addConstraints(determinants: Determinants, constraints: { maxUpdateEntries: number; maxDatabaseEntries: number } | undefined) {
  determinants.add(Math.max(0, constraints?.maxUpdateEntries ?? 0)).add(Math.max(0, constraints?.maxDatabaseEntries ?? 0));
}

/**
 * The strong ETag of the answer to a list call (GetHashList, BatchGetHashLists, FetchThreatListUpdates)
 * in `encoding`, as the catalog stands; undefined for other calls and for a list this server does not
 * publish asked for by `hashList/{name}` (that is a 404, which carries no tag).
 */
export function listAnswerTag(catalog: ListCatalog, call: RpcCall, encoding: WireEncoding, settings: ApiSettings): string | undefined {
  const determinants = new Determinants().add(DERIVATION).add(call.rpc).add(encoding).add(settings.minimumWaitMs);
  switch (call.rpc) {
    case 'GetHashList': {
      const history = catalog.get(call.request.name);
      if (history === undefined) return undefined;
      determinants.add(call.request.name).addList(history).add(call.request.version);
      addConstraints(determinants, call.request.sizeConstraints);
      return determinants.tag();
    }
    case 'BatchGetHashLists': {
      const { names, version } = call.request;
      determinants.add(names.length);
      for (const name of names) determinants.add(name).addList(catalog.get(name));
      // Versions are paired with lists by what each list recognizes (v5.ts batchGetHashLists): all of them count.
      determinants.add(version.length);
      for (const sent of version) determinants.add(sent);
      addConstraints(determinants, call.request.sizeConstraints);
      return determinants.tag();
    }
    case 'FetchThreatListUpdates': {
      const requests = call.request.listUpdateRequests;
      determinants.add(requests.length);
      for (const request of requests) {
        const { threatType, platformType, threatEntryType, constraints } = request;
        const name = listNameForV4(threatType, platformType, threatEntryType);
        determinants
          .add(threatType)
          .add(platformType)
          .add(threatEntryType)
          .addList(name === undefined ? undefined : catalog.get(name))
          .add(request.state)
          .add(constraints?.supportedCompressions.includes(CompressionType.RICE) === true ? 'rice' : 'raw');
        addConstraints(determinants, constraints);
      }
      return determinants.tag();
    }
    default:
      return undefined;
  }
}
