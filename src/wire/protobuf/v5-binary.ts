// v5's client RPCs, hashes:search, hashLists:batchGet and the hashLists listing, in binary protobuf without a protobuf
// runtime: the requests are query strings (SB-13) and the answers are read field by field here. This is
// what the browser build speaks, so that it carries none of the generated code nor its runtime, and
// what Node's client speaks in binary protobuf, so that a check loads none of it either (Node loads the
// generated code for JSON and v4). Fields are read by protobuf-reader.ts, by the numbers v5-fields.ts
// names: unknown ones skipped, as protobuf requires; a message cut short or malformed is a WireError.

import type { RiceDeltaEncoded32Bit } from '../../codec/rice32.ts';
import type { RiceDeltaEncoded128Bit, RiceDeltaEncoded256Bit, RiceDeltaEncoded64Bit } from '../../codec/rice-wide.ts';
import { encodeBase64Url } from '../base64.ts';
import type { OutgoingRequest } from '../rest/client-request.ts';
import { encodingContentType } from '../encoding.ts';
import { formatQueryString, type QueryParameter } from '../rest/query-string.ts';
import { type FieldReader, readMessage } from './protobuf-reader.ts';
import { V5_FIELDS } from './v5-fields.ts';

/** google.protobuf.Duration as protoc-gen-es gives it. */
interface DurationValue {
  seconds: bigint;
  nanos: number;
}

/** v5 `HashList`, the fields a client reads, shaped as protoc-gen-es generates them. */
export interface HashListAnswer {
  name: string;
  version: Uint8Array;
  partialUpdate: boolean;
  compressedRemovals?: RiceDeltaEncoded32Bit | undefined;
  minimumWaitDuration?: DurationValue | undefined;
  sha256Checksum: Uint8Array;
  compressedAdditions:
    | { case: 'additionsFourBytes'; value: RiceDeltaEncoded32Bit }
    | { case: 'additionsEightBytes'; value: RiceDeltaEncoded64Bit }
    | { case: 'additionsSixteenBytes'; value: RiceDeltaEncoded128Bit }
    | { case: 'additionsThirtyTwoBytes'; value: RiceDeltaEncoded256Bit }
    | { case: undefined; value?: undefined };
}

/** v5 `SearchHashesResponse`, shaped as protoc-gen-es generates it (threat enums as numbers). */
export interface SearchHashesAnswer {
  fullHashes: { fullHash: Uint8Array; fullHashDetails: { threatType: number; attributes: number[] }[] }[];
  cacheDuration?: DurationValue | undefined;
}

/** A GET of v5 asking for binary protobuf, as client-request.ts builds it: key, alt, then the message's fields. */
function getRequest(serverUrl: string, path: string, apiKey: string | undefined, fields: readonly QueryParameter[]): OutgoingRequest {
  const query: QueryParameter[] = apiKey === undefined ? [] : [{ name: 'key', value: apiKey }];
  query.push({ name: 'alt', value: 'proto' }, ...fields);
  const url = `${serverUrl.replace(/\/+$/, '')}${path}?${formatQueryString(query)}`;
  return { method: 'GET', url, headers: { accept: encodingContentType('protobuf') }, body: undefined };
}

/** `hashes:search` for 4-byte prefixes (SB-13: base64url, repeated parameters). */
export function searchHashesRequest(serverUrl: string, apiKey: string | undefined, prefixes: readonly Uint8Array[]): OutgoingRequest {
  const fields = prefixes.map((prefix) => ({ name: 'hashPrefixes', value: encodeBase64Url(prefix) }));
  return getRequest(serverUrl, '/v5/hashes:search', apiKey, fields);
}

/** `hashLists:batchGet`: the lists, their versions in the same places, the size constraints. */
export function batchGetHashListsRequest(
  serverUrl: string,
  apiKey: string | undefined,
  lists: readonly { name: string; version: Uint8Array }[],
  sizeConstraints: { maxUpdateEntries: number; maxDatabaseEntries: number },
): OutgoingRequest {
  const query: QueryParameter[] = [
    ...lists.map((list) => ({ name: 'names', value: list.name })),
    ...lists.map((list) => ({ name: 'version', value: encodeBase64Url(list.version) })),
  ];
  // proto3 leaves zero (no limit) out.
  if (sizeConstraints.maxUpdateEntries !== 0)
    query.push({ name: 'sizeConstraints.maxUpdateEntries', value: String(sizeConstraints.maxUpdateEntries) });
  if (sizeConstraints.maxDatabaseEntries !== 0)
    query.push({ name: 'sizeConstraints.maxDatabaseEntries', value: String(sizeConstraints.maxDatabaseEntries) });
  return getRequest(serverUrl, '/v5/hashLists:batchGet', apiKey, query);
}

/** `GET /v5/hashLists`: a page of the lists the server publishes, from `pageToken` on ('' for the first). */
export function listHashListsRequest(serverUrl: string, apiKey: string | undefined, pageSize: number, pageToken: string): OutgoingRequest {
  const query: QueryParameter[] = [{ name: 'pageSize', value: String(pageSize) }];
  if (pageToken !== '') query.push({ name: 'pageToken', value: pageToken });
  return getRequest(serverUrl, '/v5/hashLists', apiKey, query);
}

// A singular message field that comes more than once is merged into what came before, field by field, as
// protobuf requires; the readers below take what came before as `into`.

function readDuration(bytes: Uint8Array, what: string, into: DurationValue = { seconds: 0n, nanos: 0 }): DurationValue {
  return readMessage(bytes, what, into, (r, d) => {
    if (r.field === V5_FIELDS.Duration.seconds) d.seconds = BigInt.asIntN(64, r.uint64());
    else if (r.field === V5_FIELDS.Duration.nanos) d.nanos = r.int32();
    else r.skip();
  });
}

/** The fields every Rice-coded message has, each at its own numbers; false for any other field. */
function readRiceCoding(
  r: FieldReader,
  m: { riceParameter: number; entriesCount: number; encodedData: Uint8Array },
  fields: { riceParameter: number; entriesCount: number; encodedData: number },
): boolean {
  if (r.field === fields.riceParameter) m.riceParameter = r.int32();
  else if (r.field === fields.entriesCount) m.entriesCount = r.int32();
  else if (r.field === fields.encodedData) m.encodedData = r.bytesField();
  else return false;
  return true;
}

function readRice32(
  bytes: Uint8Array,
  what: string,
  into: RiceDeltaEncoded32Bit = { firstValue: 0, riceParameter: 0, entriesCount: 0, encodedData: new Uint8Array(0) },
): RiceDeltaEncoded32Bit {
  return readMessage<RiceDeltaEncoded32Bit>(bytes, what, into, (r, m) => {
    const fields = V5_FIELDS.RiceDeltaEncoded32Bit;
    if (r.field === fields.firstValue) m.firstValue = r.uint32();
    else if (!readRiceCoding(r, m, fields)) r.skip();
  });
}

function readRice64(
  bytes: Uint8Array,
  what: string,
  into: RiceDeltaEncoded64Bit = { firstValue: 0n, riceParameter: 0, entriesCount: 0, encodedData: new Uint8Array(0) },
): RiceDeltaEncoded64Bit {
  return readMessage<RiceDeltaEncoded64Bit>(bytes, what, into, (r, m) => {
    const fields = V5_FIELDS.RiceDeltaEncoded64Bit;
    if (r.field === fields.firstValue) m.firstValue = r.uint64();
    else if (!readRiceCoding(r, m, fields)) r.skip();
  });
}

function readRice128(bytes: Uint8Array, what: string, into?: RiceDeltaEncoded128Bit): RiceDeltaEncoded128Bit {
  const initial: RiceDeltaEncoded128Bit = into ?? {
    firstValueHi: 0n,
    firstValueLo: 0n,
    riceParameter: 0,
    entriesCount: 0,
    encodedData: new Uint8Array(0),
  };
  return readMessage(bytes, what, initial, (r, m) => {
    const fields = V5_FIELDS.RiceDeltaEncoded128Bit;
    if (r.field === fields.firstValueHi) m.firstValueHi = r.uint64();
    else if (r.field === fields.firstValueLo) m.firstValueLo = r.fixed64();
    else if (!readRiceCoding(r, m, fields)) r.skip();
  });
}

function readRice256(bytes: Uint8Array, what: string, into?: RiceDeltaEncoded256Bit): RiceDeltaEncoded256Bit {
  const initial: RiceDeltaEncoded256Bit = into ?? {
    firstValueFirstPart: 0n,
    firstValueSecondPart: 0n,
    firstValueThirdPart: 0n,
    firstValueFourthPart: 0n,
    riceParameter: 0,
    entriesCount: 0,
    encodedData: new Uint8Array(0),
  };
  return readMessage(bytes, what, initial, (r, m) => {
    const fields = V5_FIELDS.RiceDeltaEncoded256Bit;
    if (r.field === fields.firstValueFirstPart) m.firstValueFirstPart = r.uint64();
    else if (r.field === fields.firstValueSecondPart) m.firstValueSecondPart = r.fixed64();
    else if (r.field === fields.firstValueThirdPart) m.firstValueThirdPart = r.fixed64();
    else if (r.field === fields.firstValueFourthPart) m.firstValueFourthPart = r.fixed64();
    else if (!readRiceCoding(r, m, fields)) r.skip();
  });
}

const HASH_LIST = V5_FIELDS.HashList;

type Additions = HashListAnswer['compressedAdditions'];
type AdditionsMember = NonNullable<Additions['case']>;
type AdditionsOf<M extends AdditionsMember> = Extract<Additions, { case: M }>['value'];

/** The reader of each member of the additions' oneof, one per hash width. */
const ADDITIONS_READERS: { [M in AdditionsMember]: (bytes: Uint8Array, what: string, into?: AdditionsOf<M>) => AdditionsOf<M> } = {
  additionsFourBytes: readRice32,
  additionsEightBytes: readRice64,
  additionsSixteenBytes: readRice128,
  additionsThirtyTwoBytes: readRice256,
};
const ADDITIONS_BY_FIELD = new Map<number, AdditionsMember>(
  (Object.keys(ADDITIONS_READERS) as AdditionsMember[]).map((member) => [HASH_LIST[member], member]),
);

/** The additions' oneof once `member` came: the same member again merges into it, another one replaces it (protobuf's rule). */
function readAdditions<M extends AdditionsMember>(member: M, bytes: Uint8Array, what: string, before: Additions): Additions {
  const into = before.case === member ? (before.value as AdditionsOf<M>) : undefined;
  // TypeScript cannot tie the member to its value's type through the generic; ADDITIONS_READERS does.
  return { case: member, value: ADDITIONS_READERS[member](bytes, what, into) } as Additions;
}

function readHashList(bytes: Uint8Array, what: string): HashListAnswer {
  const initial: HashListAnswer = {
    name: '',
    version: new Uint8Array(0),
    partialUpdate: false,
    compressedRemovals: undefined,
    minimumWaitDuration: undefined,
    sha256Checksum: new Uint8Array(0),
    compressedAdditions: { case: undefined },
  };
  return readMessage(bytes, what, initial, (r, m) => {
    switch (r.field) {
      case HASH_LIST.name:
        m.name = r.string();
        break;
      case HASH_LIST.version:
        m.version = r.bytesField();
        break;
      case HASH_LIST.partialUpdate:
        m.partialUpdate = r.bool();
        break;
      case HASH_LIST.compressedRemovals:
        m.compressedRemovals = readRice32(r.bytesField(), what, m.compressedRemovals);
        break;
      case HASH_LIST.minimumWaitDuration:
        m.minimumWaitDuration = readDuration(r.bytesField(), what, m.minimumWaitDuration);
        break;
      case HASH_LIST.sha256Checksum:
        m.sha256Checksum = r.bytesField();
        break;
      default: {
        const member = ADDITIONS_BY_FIELD.get(r.field);
        if (member === undefined) r.skip();
        else m.compressedAdditions = readAdditions(member, r.bytesField(), what, m.compressedAdditions);
      }
    }
  });
}

/** A binary `BatchGetHashListsResponse`; throws WireError when it is no valid message. */
export function decodeBatchGetHashListsAnswer(bytes: Uint8Array): { hashLists: HashListAnswer[] } {
  const what = "the server's BatchGetHashLists response";
  return readMessage(bytes, what, { hashLists: [] as HashListAnswer[] }, (r, m) => {
    if (r.field === V5_FIELDS.BatchGetHashListsResponse.hashLists) m.hashLists.push(readHashList(r.bytesField(), what));
    else r.skip();
  });
}

/** A binary `SearchHashesResponse`; throws WireError when it is no valid message. */
export function decodeSearchHashesAnswer(bytes: Uint8Array): SearchHashesAnswer {
  const what = "the server's SearchHashes response";
  const initial: SearchHashesAnswer = { fullHashes: [], cacheDuration: undefined };
  return readMessage(bytes, what, initial, (r, m) => {
    if (r.field === V5_FIELDS.SearchHashesResponse.fullHashes) {
      const fullHash: SearchHashesAnswer['fullHashes'][number] = { fullHash: new Uint8Array(0), fullHashDetails: [] };
      readMessage(r.bytesField(), what, fullHash, (h, f) => {
        if (h.field === V5_FIELDS.FullHash.fullHash) f.fullHash = h.bytesField();
        else if (h.field === V5_FIELDS.FullHash.fullHashDetails) {
          const detail = { threatType: 0, attributes: [] as number[] };
          readMessage(h.bytesField(), what, detail, (d, out) => {
            if (d.field === V5_FIELDS.FullHash_FullHashDetail.threatType) out.threatType = d.int32();
            else if (d.field === V5_FIELDS.FullHash_FullHashDetail.attributes) d.repeatedEnum(out.attributes);
            else d.skip();
          });
          f.fullHashDetails.push(detail);
        } else h.skip();
      });
      m.fullHashes.push(fullHash);
    } else if (r.field === V5_FIELDS.SearchHashesResponse.cacheDuration)
      m.cacheDuration = readDuration(r.bytesField(), what, m.cacheDuration);
    else r.skip();
  });
}

/** v5 `ListHashListsResponse`, the fields a client reads: each list's name (not its metadata) and the next page's token. */
export interface ListHashListsAnswer {
  names: string[];
  nextPageToken: string;
}

/** A binary `ListHashListsResponse`; throws WireError when it is no valid message. */
export function decodeListHashListsAnswer(bytes: Uint8Array): ListHashListsAnswer {
  const what = "the server's ListHashLists response";
  return readMessage(bytes, what, { names: [] as string[], nextPageToken: '' }, (r, m) => {
    if (r.field === V5_FIELDS.ListHashListsResponse.hashLists) {
      const list = readMessage(r.bytesField(), what, { name: '' }, (l, out) => {
        if (l.field === HASH_LIST.name) out.name = l.string();
        else l.skip();
      });
      m.names.push(list.name);
    } else if (r.field === V5_FIELDS.ListHashListsResponse.nextPageToken) m.nextPageToken = r.string();
    else r.skip();
  });
}
