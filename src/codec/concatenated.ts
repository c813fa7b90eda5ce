// Typed arrays one after the other in one new array: a body read in chunks, a list decoded in parts, a
// message built from its fields. A loop rather than a spread into a variadic call, so that a body of
// millions of chunks (a server trickling bytes) cannot overflow the engine's bound on arguments.

/** `parts` one after the other, in a new array of `kind`. */
export function concatenated<T extends Uint8Array | Uint32Array>(kind: new (length: number) => T, parts: readonly T[]): T {
  const out = new kind(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** `parts` one after the other, in new bytes. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  return concatenated(Uint8Array, parts);
}
