// The strong ETag of a list answer (v5 hashList and hashLists:batchGet, v4 threatListUpdates:fetch),
// derived from what determines the answer's bytes rather than from the bytes: a cache revalidating an
// entry then costs the server a few hundred bytes of SHA-256 and a 304, not the diff, its Rice coding
// and its encoding.
//
// What the bytes of a list answer depend on, and so what goes into the tag:
// - the RPC and the form of the answer (answer-form.ts): the encoding chosen for it (wire/encoding.ts),
//   and whether its JSON gives enums by number;
// - the names asked for, as the answer echoes them, and for each the list's kept snapshots, oldest
//   first, the current one last. Snapshot ids are derived from the list's name, hash length and
//   content (lists/snapshot.ts), so they name the lists diffs are computed between; which of the
//   client's versions a history recognizes (and so whether it gets a diff or the whole list, SB-9)
//   depends on nothing else. A name this server does not publish is marked as such;
// - for each list, the client's version or v4 state (a batch's paired with the lists as the answer pairs
//   them, list-requests.ts) and its size constraints, in the one form that the list answers alike
//   (ListHistory.canonicalRequest): a version it cannot continue from counts as none, a constraint the
//   answer does not reach as no limit. Made-up versions and constraints then share the answer's tag,
//   and the encoded answer kept under it, instead of costing a Rice coding each (issue 26, S10);
//   for v4 also the triple it echoes and whether it reads Rice coding, for Web Risk the threat type and
//   whether it reads Rice coding;
// - the minimum wait sent with complete updates (SB-12), each list's: shorter while it is changing.
// The threat types, description and anything else of a list definition appear in no list answer. A
// property test (test/server/api/answers/list-etag.test.ts) checks that equal tags always come with equal bytes.

import { hash } from 'node:crypto';
import { CompressionType } from '../../../proto/v4.ts';
import { CompressionType as WebRiskCompressionType } from '../../../proto/webrisk.ts';
import { answerIssuedAt, answerNamesMoment } from './answer-caching.ts';
import type { AnswerForm } from './answer-form.ts';
import { isListUpdate, listsNamedBy, type RpcCall } from '../../../wire/rest/routes.ts';
import type { ListCatalog } from '../../catalog.ts';
import type { ListHistory, SizeConstraints } from '../../lists/list-history.ts';
import { pairedVersions, sizeConstraintsOf } from './list-requests.ts';
import { type ApiSettings, minimumWaitOf } from '../settings.ts';

/** Changed whenever what the tag covers changes, so that no tag of an older derivation matches a newer answer. */
const DERIVATION = 'sbkit list answer 2';
/** 128 bits of SHA-256: collisions are out of reach, and the header stays short. */
const TAG_BYTES = 16;

/**
 * The inputs, each framed by its length so that no two different sequences hash alike. They are laid
 * end to end in one buffer and hashed at once: the tag is also the key the encoded answers are kept
 * under (encoded-answers.ts), worked out on every list request, where a hash update and a Buffer per
 * input cost more than the rest of the work.
 */
class Determinants {
  private bytes = Buffer.allocUnsafe(512);
  private length = 0;

  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  add(value: string | number | Uint8Array): this {
    if (typeof value !== 'string' && typeof value !== 'number') {
      this.reserve(4 + value.byteLength);
      this.bytes.writeUInt32BE(value.byteLength, this.length);
      this.bytes.set(value, this.length + 4);
      this.length += 4 + value.byteLength;
      return this;
    }
    const text = typeof value === 'number' ? String(value) : value;
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    this.reserve(4 + 3 * text.length);
    const written = this.bytes.write(text, this.length + 4, 'utf8');
    this.bytes.writeUInt32BE(written, this.length);
    this.length += 4 + written;
    return this;
  }

  /** What a list answers the client at `version` within `constraints`, as the list reads them (canonicalRequest). */
  addRequest(history: ListHistory, version: Uint8Array, constraints: SizeConstraints): this {
    const canonical = history.canonicalRequest(version, constraints);
    return this.add(canonical.version).add(canonical.constraints.maxUpdateEntries).add(canonical.constraints.maxDatabaseEntries);
  }

  /** A list's served versions: its kept snapshots, oldest first, the current one last, and its wait; or none. */
  addList(history: ListHistory | undefined, settings: ApiSettings, now: number): this {
    this.add(minimumWaitOf(history, settings, now));
    if (history === undefined) return this.add('absent');
    const ids = history.keptIds();
    this.add(ids.length);
    for (const id of ids) this.add(id);
    return this;
  }

  /** A strong entity tag: quoted, not `W/`. */
  tag(): string {
    const digest = hash('sha256', this.bytes.subarray(0, this.length), 'buffer');
    return `"${digest.subarray(0, TAG_BYTES).toString('base64url')}"`;
  }
}

/**
 * The strong ETag of the answer to a list update (GetHashList, BatchGetHashLists, FetchThreatListUpdates,
 * ComputeThreatListDiff: the route table's `list update`s) in `encoding`, as the catalog stands at `now` (wall time, ms); undefined for other calls, whose
 * answers carry none (searches, the busiest calls, have nothing worked out for them), and for a list this
 * server does not publish asked for by `hashList/{name}` (that is a 404, which carries no tag).
 */
export function listAnswerTag(
  catalog: ListCatalog,
  call: RpcCall,
  encoding: AnswerForm,
  settings: ApiSettings,
  now: number,
): string | undefined {
  if (!isListUpdate(call)) return undefined;
  const histories = historiesNamedBy(catalog, call);
  const determinants = new Determinants().add(DERIVATION).add(call.rpc).add(encoding).add(settings.minimumWaitMs);
  switch (call.rpc) {
    case 'GetHashList': {
      const history = histories[0];
      if (history === undefined) return undefined;
      determinants.add(call.request.name).addList(history, settings, now);
      determinants.addRequest(history, call.request.version, sizeConstraintsOf(call.request.sizeConstraints));
      return determinants.tag();
    }
    case 'BatchGetHashLists': {
      const { names } = call.request;
      const versions = pairedVersions(histories, call.request.version);
      const constraints = sizeConstraintsOf(call.request.sizeConstraints);
      determinants.add(names.length);
      histories.forEach((history, i) => {
        determinants.add(names[i]!).addList(history, settings, now);
        // A list this server does not publish is answered alike whatever was sent for it.
        if (history !== undefined) determinants.addRequest(history, versions[i]!, constraints);
      });
      return determinants.tag();
    }
    case 'FetchThreatListUpdates': {
      const requests = call.request.listUpdateRequests;
      determinants.add(requests.length);
      requests.forEach((request, i) => {
        const { threatType, platformType, threatEntryType, constraints } = request;
        const history = histories[i];
        determinants
          .add(threatType)
          .add(platformType)
          .add(threatEntryType)
          .addList(history, settings, now)
          .add(constraints?.supportedCompressions.includes(CompressionType.RICE) === true ? 'rice' : 'raw');
        if (history !== undefined) determinants.addRequest(history, request.state, sizeConstraintsOf(constraints));
      });
      return determinants.tag();
    }
    case 'ComputeThreatListDiff': {
      const history = histories[0];
      // A type no list answers is refused (unknown-lists.ts), and a refusal carries no tag.
      if (history === undefined) return undefined;
      const { constraints } = call.request;
      determinants
        .add(call.request.threatType)
        // The answer names a moment, worked out from its minute (answer-caching.ts).
        .add(answerIssuedAt(now))
        .addList(history, settings, now)
        .add(constraints?.supportedCompressions.includes(WebRiskCompressionType.RICE) === true ? 'rice' : 'raw');
      // The diff's entries are v4's update entries.
      determinants.addRequest(
        history,
        call.request.versionToken,
        sizeConstraintsOf({ maxUpdateEntries: constraints?.maxDiffEntries ?? 0, maxDatabaseEntries: constraints?.maxDatabaseEntries ?? 0 }),
      );
      return determinants.tag();
    }
  }
}

/** What a tag was worked out from, beyond the call itself: per list asked, its history, revision and wait. */
interface TagInputs {
  encoding: AnswerForm;
  /** When an answer that names a moment was issued (answerIssuedAt); undefined for the others. */
  issuedAt: number | undefined;
  minimumWaitMs: number;
  histories: (ListHistory | undefined)[];
  revisions: number[];
  waits: number[];
  tag: string;
}

/** The history of each list a list update names, in its order; undefined where the catalog has none. */
function historiesNamedBy(catalog: ListCatalog, call: RpcCall): (ListHistory | undefined)[] {
  return listsNamedBy(call).map((name) => (name === undefined ? undefined : catalog.get(name)));
}

/**
 * Tags of list calls, remembered for each decoded call (decoded-requests.ts hands the same call to every
 * client that sends the same request): while each list asked for is the same history at the same
 * revision with the same minimum wait, and the settings' wait is unchanged, the tag is the one worked
 * out before; any difference works it out again. Held weakly: a call forgotten is a tag forgotten.
 */
export class ListAnswerTags {
  private readonly kept = new WeakMap<RpcCall, TagInputs>();

  tagOf(catalog: ListCatalog, call: RpcCall, encoding: AnswerForm, settings: ApiSettings, now: number): string | undefined {
    if (!isListUpdate(call)) return undefined;
    const kept = this.kept.get(call);
    const issuedAt = answerNamesMoment(call.rpc) ? answerIssuedAt(now) : undefined;
    if (kept !== undefined && kept.encoding === encoding && kept.issuedAt === issuedAt && kept.minimumWaitMs === settings.minimumWaitMs) {
      const histories = historiesNamedBy(catalog, call);
      let same = histories.length === kept.histories.length;
      for (let i = 0; same && i < histories.length; i++) {
        const history = histories[i];
        same =
          history === kept.histories[i] &&
          (history?.revision ?? 0) === kept.revisions[i] &&
          minimumWaitOf(history, settings, now) === kept.waits[i];
      }
      if (same) return kept.tag;
    }
    const tag = listAnswerTag(catalog, call, encoding, settings, now);
    if (tag === undefined) return undefined;
    const histories = historiesNamedBy(catalog, call);
    this.kept.set(call, {
      encoding,
      issuedAt,
      minimumWaitMs: settings.minimumWaitMs,
      histories,
      revisions: histories.map((history) => history?.revision ?? 0),
      waits: histories.map((history) => minimumWaitOf(history, settings, now)),
      tag,
    });
    return tag;
  }
}
