// Protobuf's wire types, the low three bits of a field's tag: how the value after the tag is laid out
// (protobuf.dev/programming-guides/encoding, "Message Structure"). The reader and the writer of this
// room speak them; groups are obsolete and only ever skipped.

export const WireType = {
  varint: 0,
  fixed64: 1,
  lengthDelimited: 2,
  startGroup: 3,
  endGroup: 4,
  fixed32: 5,
} as const;

export type WireType = (typeof WireType)[keyof typeof WireType];
