// Binary HTTP messages (RFC 9292), known-length form: what Oblivious HTTP encrypts (SB-2). A request
// is its method, scheme, authority and path, its header fields and its content; a response is its
// status, header fields and content. Trailers are written empty and read and dropped; interim (1xx)
// responses are read and skipped; zero padding at the end is allowed. Anything else is a
// BinaryHttpError, never a partial message.

import { concatBytes, concatenated } from '../../codec/concatenated.ts';
import { BinaryHttpError } from '../wire-error.ts';

export interface BinaryHttpRequest {
  method: string;
  scheme: string;
  authority: string;
  /** Path and query, e.g. `/v5/hashes:search?hashPrefixes=WwuJdQ`. */
  path: string;
  headers: [string, string][];
  content: Uint8Array;
}

export interface BinaryHttpResponse {
  status: number;
  headers: [string, string][];
  content: Uint8Array;
}

const KNOWN_LENGTH_REQUEST = 0;
const KNOWN_LENGTH_RESPONSE = 1;
const encoder = new TextEncoder();

export function encodeBinaryHttpRequest(request: BinaryHttpRequest): Uint8Array {
  const out = new Writer();
  out.varint(KNOWN_LENGTH_REQUEST);
  for (const part of [request.method, request.scheme, request.authority, request.path]) out.string(part);
  out.fields(request.headers);
  out.bytes(request.content);
  out.fields([]);
  return out.done();
}

export function encodeBinaryHttpResponse(response: BinaryHttpResponse): Uint8Array {
  const out = new Writer();
  out.varint(KNOWN_LENGTH_RESPONSE);
  out.varint(response.status);
  out.fields(response.headers);
  out.bytes(response.content);
  out.fields([]);
  return out.done();
}

export function decodeBinaryHttpRequest(message: Uint8Array): BinaryHttpRequest {
  const input = new Reader(message);
  const framing = input.varint('framing indicator');
  if (framing !== KNOWN_LENGTH_REQUEST)
    throw new BinaryHttpError(`framing indicator ${framing} is not a known-length request (0); other forms are not accepted`);
  const [method, scheme, authority, path] = ['method', 'scheme', 'authority', 'path'].map((what) => input.string(what)) as [
    string,
    string,
    string,
    string,
  ];
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method))
    throw new BinaryHttpError(`method ${JSON.stringify(method.slice(0, 20))} is not an HTTP method token`);
  if (!path.startsWith('/')) throw new BinaryHttpError('the path must start with "/"');
  const headers = input.atEnd() ? [] : input.fields('header section');
  const content = input.atEnd() ? new Uint8Array(0) : input.bytes('content');
  if (!input.atEnd()) input.fields('trailer section');
  input.padding();
  return { method, scheme, authority, path, headers, content };
}

export function decodeBinaryHttpResponse(message: Uint8Array): BinaryHttpResponse {
  const input = new Reader(message);
  const framing = input.varint('framing indicator');
  if (framing !== KNOWN_LENGTH_RESPONSE) throw new BinaryHttpError(`framing indicator ${framing} is not a known-length response (1)`);
  let status = input.varint('status code');
  // Interim responses come first, each with its own fields.
  while (status >= 100 && status < 200) {
    input.fields('interim response fields');
    status = input.varint('status code');
  }
  if (status < 200 || status > 599) throw new BinaryHttpError(`status code ${status} is not a final HTTP status`);
  const headers = input.atEnd() ? [] : input.fields('header section');
  const content = input.atEnd() ? new Uint8Array(0) : input.bytes('content');
  if (!input.atEnd()) input.fields('trailer section');
  input.padding();
  return { status, headers, content };
}

/** Messages are padded to a multiple of this, so that their sizes tell little about what they hold. */
const PADDING_BLOCK = 256;

/** A binary HTTP message with zero padding up to the next multiple of PADDING_BLOCK (RFC 9292 §3.8). */
export function padded(message: Uint8Array): Uint8Array {
  const size = Math.ceil(message.length / PADDING_BLOCK) * PADDING_BLOCK;
  return size === message.length ? message : concatBytes(message, new Uint8Array(size - message.length));
}

/** QUIC variable-length integers (RFC 9000 §16) and length-prefixed parts, growing as written. */
class Writer {
  private readonly chunks: Uint8Array[] = [];

  varint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${value} cannot be a variable-length integer`);
    if (value < 0x40) this.chunks.push(Uint8Array.of(value));
    else if (value < 0x4000) this.chunks.push(Uint8Array.of(0x40 | (value >> 8), value & 0xff));
    else if (value < 0x40000000) {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setUint32(0, value);
      b[0]! |= 0x80;
      this.chunks.push(b);
    } else {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt(value));
      b[0]! |= 0xc0;
      this.chunks.push(b);
    }
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.chunks.push(value);
  }

  string(value: string): void {
    this.bytes(encoder.encode(value));
  }

  fields(fields: readonly (readonly [string, string])[]): void {
    const section = new Writer();
    for (const [name, value] of fields) {
      section.string(name.toLowerCase());
      section.string(value);
    }
    this.bytes(section.done());
  }

  done(): Uint8Array {
    return concatenated(Uint8Array, this.chunks);
  }
}

class Reader {
  private offset = 0;

  constructor(private readonly data: Uint8Array) {}

  atEnd(): boolean {
    return this.offset >= this.data.length;
  }

  varint(what: string): number {
    const first = this.take(1, what)[0]!;
    const length = 1 << (first >> 6);
    let value = first & 0x3f;
    for (const byte of this.take(length - 1, what)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value)) throw new BinaryHttpError(`${what} is too large`);
    return value;
  }

  bytes(what: string): Uint8Array {
    return this.take(this.varint(`length of the ${what}`), what);
  }

  string(what: string): string {
    const bytes = this.bytes(what);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new BinaryHttpError(`the ${what} is not UTF-8`);
    }
  }

  fields(what: string): [string, string][] {
    const section = new Reader(this.bytes(what));
    const fields: [string, string][] = [];
    while (!section.atEnd()) fields.push([section.string(`field name in the ${what}`), section.string(`field value in the ${what}`)]);
    return fields;
  }

  /** RFC 9292 §3.8: what follows a message may only be zeros. */
  padding(): void {
    for (let i = this.offset; i < this.data.length; i++) {
      if (this.data[i] !== 0)
        throw new BinaryHttpError(`the message has ${this.data.length - this.offset} bytes after its end that are not padding`);
    }
  }

  private take(length: number, what: string): Uint8Array {
    if (length > this.data.length - this.offset) throw new BinaryHttpError(`the message ends inside its ${what}`);
    const part = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return part;
  }
}
