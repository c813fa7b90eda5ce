// List answers encoded once per list version. Every client of a list asks the same few questions (the
// current version, the update from each recent version), so the Rice coding and protobuf or JSON
// encoding of an answer are done on its first request and reused until a publish changes what it would
// say. The key is the answer's strong ETag (list-etag.ts), which covers everything the bytes depend on.

import { BoundedMap } from '../../../store/bounded-map.ts';
import type { EncodedPayload } from '../../../wire/payload.ts';

/** What the cache holds at most, in bytes of encoded answers: a few full updates of multi-million-entry lists. */
const ENCODED_ANSWERS_MAX_BYTES = 64 * 1024 * 1024;
/** And in answers: clients that vary their size constraints make many small ones. */
const ENCODED_ANSWERS_MAX_ENTRIES = 1024;

/**
 * Encoded list answers by tag, the least recently used forgotten first, bounded in bytes (body and tag)
 * and in entries so that what clients can make the server keep stays bounded (docs/architecture.md). An
 * answer larger than the whole cache is encoded for each request and never kept.
 */
export function encodedAnswers(): BoundedMap<string, EncodedPayload> {
  return new BoundedMap(ENCODED_ANSWERS_MAX_ENTRIES, {
    max: ENCODED_ANSWERS_MAX_BYTES,
    of: (tag, payload) => payload.body.byteLength + tag.length,
  });
}
