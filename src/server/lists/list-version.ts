import { SNAPSHOT_ID_BYTES } from './snapshot.ts';

/**
 * A list as one client holds it: a snapshot's served list, whole (`limit` 0) or only its first `limit`
 * entries (a client's `max_database_entries`, docs/api.md SizeConstraints).
 */
export interface ServedState {
  snapshotId: string;
  limit: number;
}

/**
 * What a version says about the client's list (SB-9: "opaque" to clients, but ours to read):
 * - `settled`: exactly the served state `at`;
 * - `transfer`: on the way from `from` (undefined: an empty list, a full update) to `to`, the first
 *   `progress` entries of that diff applied, removals before additions (list-diff.ts). A transfer stops
 *   there when a client's `max_update_entries` cut the update short.
 */
export type ClientState =
  { kind: 'settled'; at: ServedState } | { kind: 'transfer'; from: ServedState | undefined; to: ServedState; progress: number };

/*
 * Version bytes: one tag byte, then fixed fields; ids are raw 16 bytes, numbers big-endian uint32.
 *   0x01 settled                    id · limit                                 21 bytes
 *   0x02 transfer from a snapshot   from id · from limit · to id · to limit · progress   45 bytes
 *   0x03 transfer from empty        to id · to limit · progress                25 bytes
 * Anything else (another length, another tag) is not a version of ours.
 */
const SETTLED = 0x01;
const FROM_SNAPSHOT = 0x02;
const FROM_EMPTY = 0x03;
const STATE_BYTES = SNAPSHOT_ID_BYTES + 4;

export function encodeVersion(state: ClientState): Uint8Array {
  const parts: Buffer[] = [];
  if (state.kind === 'settled') {
    parts.push(Buffer.of(SETTLED), stateBytes(state.at));
  } else {
    parts.push(Buffer.of(state.from === undefined ? FROM_EMPTY : FROM_SNAPSHOT));
    if (state.from !== undefined) parts.push(stateBytes(state.from));
    parts.push(stateBytes(state.to), uint32(state.progress));
  }
  return new Uint8Array(Buffer.concat(parts));
}

/** The state a version names, or undefined for bytes that are no version of ours (hostile or foreign). */
export function decodeVersion(version: Uint8Array): ClientState | undefined {
  const bytes = Buffer.from(version.buffer, version.byteOffset, version.byteLength);
  switch (bytes[0]) {
    case SETTLED:
      return bytes.length === 1 + STATE_BYTES ? { kind: 'settled', at: readState(bytes, 1) } : undefined;
    case FROM_SNAPSHOT:
      if (bytes.length !== 1 + 2 * STATE_BYTES + 4) return undefined;
      return {
        kind: 'transfer',
        from: readState(bytes, 1),
        to: readState(bytes, 1 + STATE_BYTES),
        progress: bytes.readUInt32BE(1 + 2 * STATE_BYTES),
      };
    case FROM_EMPTY:
      if (bytes.length !== 1 + STATE_BYTES + 4) return undefined;
      return { kind: 'transfer', from: undefined, to: readState(bytes, 1), progress: bytes.readUInt32BE(1 + STATE_BYTES) };
    default:
      return undefined;
  }
}

function stateBytes(state: ServedState): Buffer {
  return Buffer.concat([Buffer.from(state.snapshotId, 'hex'), uint32(state.limit)]);
}

function readState(bytes: Buffer, offset: number): ServedState {
  return { snapshotId: bytes.toString('hex', offset, offset + SNAPSHOT_ID_BYTES), limit: bytes.readUInt32BE(offset + SNAPSHOT_ID_BYTES) };
}

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value);
  return out;
}
