// Messages to and from bytes in either wire encoding: binary protobuf, or proto3 canonical JSON (bytes as
// base64, 64-bit integers as strings, Duration as "300s", enums by name; docs/api.md, JSON mapping).

import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { create, fromBinary, fromJsonString, toBinary, toJsonString } from '@bufbuild/protobuf';
import type { WireEncoding } from './encoding.ts';
import { encodingContentType } from './encoding.ts';
import { WireError } from './wire-error.ts';

/** A message ready to send: its Content-Type and its bytes. */
export interface EncodedPayload {
  contentType: string;
  body: Uint8Array;
}

/**
 * A message in `encoding`; `enumsAsNumbers` gives a JSON message's enums by number, as Google's client
 * libraries ask with `$alt=json;enum-encoding=int`.
 */
export function encodePayload<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  encoding: WireEncoding,
  enumsAsNumbers = false,
): EncodedPayload {
  const body =
    encoding === 'json'
      ? new TextEncoder().encode(toJsonString(schema, message, { enumAsInteger: enumsAsNumbers }))
      : toBinary(schema, message);
  return { contentType: encodingContentType(encoding), body };
}

/**
 * Parses a message. Binary parsing accepts repeated scalars packed and unpacked (docs/api.md §3 pitfall 5)
 * and drops unknown fields; JSON parsing ignores unknown fields and enum names, because real clients
 * send REST-only fields such as `apiClient` and `language`. An empty body is the empty message in both
 * encodings. Anything unparsable is INVALID_ARGUMENT; `what` names the payload in the message.
 */
export function decodePayload<Desc extends DescMessage>(
  schema: Desc,
  body: Uint8Array,
  encoding: WireEncoding,
  what: string,
): MessageShape<Desc> {
  if (body.byteLength === 0) return create(schema);
  try {
    if (encoding === 'protobuf') return fromBinary(schema, body, { readUnknownFields: false });
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    return fromJsonString(schema, text, { ignoreUnknownFields: true });
  } catch (cause) {
    // The library's messages can quote the offending input; keep them short.
    const full = cause instanceof Error ? cause.message : String(cause);
    const detail = full.length > 200 ? `${full.slice(0, 200)}…` : full;
    const form = encoding === 'json' ? 'proto3 JSON' : 'binary protobuf';
    throw new WireError('INVALID_ARGUMENT', `${what} is not a valid ${form} ${schema.typeName}: ${detail}`);
  }
}
