// Byte strings (one char code per byte, 0..255) to and from bytes, on any runtime. Node's Buffer does it
// natively and fastest, and the URL pipeline is hot, so Node keeps it; elsewhere plain JavaScript does.

/** Node's Buffer where there is one (Node, Bun, Deno's Node mode); never imported, so bundles stay free of it. */
const nodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** Bytes at a time for String.fromCharCode, well under any engine's limit on arguments. */
const CHUNK = 8192;

/** The bytes `start` to `end` of `bytes` as a byte string. */
export function latin1OfBytes(bytes: Uint8Array, start = 0, end = bytes.length): string {
  if (nodeBuffer !== undefined) {
    const buffer = nodeBuffer.isBuffer(bytes) ? bytes : nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    return buffer.toString('latin1', start, end);
  }
  let out = '';
  for (let i = start; i < end; i += CHUNK) out += String.fromCharCode(...bytes.subarray(i, Math.min(end, i + CHUNK)));
  return out;
}

/** Room for `length` bytes, uninitialized where the runtime allows: a Buffer on Node, so latin1OfBytes reads it natively. */
export function allocBytes(length: number): Uint8Array {
  return nodeBuffer === undefined ? new Uint8Array(length) : nodeBuffer.allocUnsafeSlow(length);
}

/** A byte string's bytes. */
export function bytesOfLatin1(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const encoder = new TextEncoder();

/** The UTF-8 bytes of any JS string, as a byte string. */
export function utf8ByteString(text: string): string {
  if (nodeBuffer !== undefined) return nodeBuffer.from(text, 'utf8').toString('latin1');
  return latin1OfBytes(encoder.encode(text));
}
