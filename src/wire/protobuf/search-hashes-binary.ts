// The hashes:search answer in binary protobuf, written field by field (protobuf-writer.ts). It is the
// response the server sends most (every browser lookup that misses its cache), and the reflection-based
// encoder of protobuf-es spends longer on this small message than the rest of the request does. The bytes
// are the ones toBinary writes, field order and packed enums included (test/wire/protobuf/search-hashes-binary.test.ts).

import type { Duration } from '@bufbuild/protobuf/wkt';
import { type FullHash, type FullHash_FullHashDetail as FullHashDetail, type SearchHashesResponse, ThreatType } from '../../proto/v5.ts';
import { delimitedSize, FieldWriter, int32Size, tagSize, uint64Size } from './protobuf-writer.ts';
import { V5_FIELDS } from './v5-fields.ts';
import { WireType } from './wire-type.ts';

const { SearchHashesResponse: RESPONSE, FullHash: HASH, FullHash_FullHashDetail: DETAIL, Duration: DURATION } = V5_FIELDS;

/** SearchHashesResponse as binary protobuf. Messages carrying unknown fields must use toBinary instead. */
export function encodeSearchHashesResponse(message: SearchHashesResponse): Uint8Array {
  let size = 0;
  for (const fullHash of message.fullHashes) size += delimitedSize(RESPONSE.fullHashes, fullHashSize(fullHash));
  if (message.cacheDuration !== undefined) size += delimitedSize(RESPONSE.cacheDuration, durationSize(message.cacheDuration));
  const out = new FieldWriter(size);
  for (const fullHash of message.fullHashes) {
    out.delimited(RESPONSE.fullHashes, fullHashSize(fullHash));
    if (fullHash.fullHash.length > 0) out.bytesField(HASH.fullHash, fullHash.fullHash);
    for (const detail of fullHash.fullHashDetails) {
      out.delimited(HASH.fullHashDetails, detailSize(detail));
      if (detail.threatType !== ThreatType.THREAT_TYPE_UNSPECIFIED) {
        out.tag(DETAIL.threatType, WireType.varint);
        out.int32(detail.threatType);
      }
      if (detail.attributes.length > 0) {
        // proto3 packs repeated enums.
        out.delimited(DETAIL.attributes, packedSize(detail.attributes));
        for (const attribute of detail.attributes) out.int32(attribute);
      }
    }
  }
  const duration = message.cacheDuration;
  if (duration !== undefined) {
    out.delimited(RESPONSE.cacheDuration, durationSize(duration));
    if (duration.seconds !== 0n) {
      out.tag(DURATION.seconds, WireType.varint);
      out.uint64(BigInt.asUintN(64, duration.seconds));
    }
    if (duration.nanos !== 0) {
      out.tag(DURATION.nanos, WireType.varint);
      out.int32(duration.nanos);
    }
  }
  return out.done();
}

function fullHashSize(fullHash: FullHash): number {
  let size = fullHash.fullHash.length > 0 ? delimitedSize(HASH.fullHash, fullHash.fullHash.length) : 0;
  for (const detail of fullHash.fullHashDetails) size += delimitedSize(HASH.fullHashDetails, detailSize(detail));
  return size;
}

function detailSize(detail: FullHashDetail): number {
  let size = detail.threatType !== ThreatType.THREAT_TYPE_UNSPECIFIED ? tagSize(DETAIL.threatType) + int32Size(detail.threatType) : 0;
  if (detail.attributes.length > 0) size += delimitedSize(DETAIL.attributes, packedSize(detail.attributes));
  return size;
}

function packedSize(values: readonly number[]): number {
  let size = 0;
  for (const value of values) size += int32Size(value);
  return size;
}

function durationSize(duration: Duration): number {
  let size = duration.seconds !== 0n ? tagSize(DURATION.seconds) + uint64Size(BigInt.asUintN(64, duration.seconds)) : 0;
  if (duration.nanos !== 0) size += tagSize(DURATION.nanos) + int32Size(duration.nanos);
  return size;
}
