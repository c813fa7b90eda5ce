// The field numbers of the v5 messages this room reads and writes without the generated code
// (proto/google/security/safebrowsing/v5/safebrowsing.proto, and google.protobuf.Duration), named once:
// v5-binary.ts reads the client's answers by them and search-hashes-binary.ts writes the server's
// hashes:search answer by them. Each message under the name protoc-gen-es gives it, each field under
// its name there, so that a test holds the table to the generated descriptors
// (test/wire/protobuf/v5-fields.test.ts).

export const V5_FIELDS = {
  Duration: { seconds: 1, nanos: 2 },
  SearchHashesResponse: { fullHashes: 1, cacheDuration: 2 },
  FullHash: { fullHash: 1, fullHashDetails: 2 },
  FullHash_FullHashDetail: { threatType: 1, attributes: 2 },
  RiceDeltaEncoded32Bit: { firstValue: 1, riceParameter: 2, entriesCount: 3, encodedData: 4 },
  RiceDeltaEncoded64Bit: { firstValue: 1, riceParameter: 2, entriesCount: 3, encodedData: 4 },
  RiceDeltaEncoded128Bit: { firstValueHi: 1, firstValueLo: 2, riceParameter: 3, entriesCount: 4, encodedData: 5 },
  RiceDeltaEncoded256Bit: {
    firstValueFirstPart: 1,
    firstValueSecondPart: 2,
    firstValueThirdPart: 3,
    firstValueFourthPart: 4,
    riceParameter: 5,
    entriesCount: 6,
    encodedData: 7,
  },
  HashList: {
    name: 1,
    version: 2,
    partialUpdate: 3,
    additionsFourBytes: 4,
    compressedRemovals: 5,
    minimumWaitDuration: 6,
    sha256Checksum: 7,
    additionsEightBytes: 9,
    additionsSixteenBytes: 10,
    additionsThirtyTwoBytes: 11,
  },
  BatchGetHashListsResponse: { hashLists: 1 },
  ListHashListsResponse: { hashLists: 1, nextPageToken: 2 },
} as const;
