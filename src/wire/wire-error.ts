// Errors the way Google's REST front end reports them: an HTTP status plus the JSON body
// `{"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}` (the shape Safe Browsing itself
// answers with, e.g. google-api-go-client issue #2534). Request errors are JSON even for requests that
// asked for protobuf: no source available here says what binary form Google sends for them, and the
// clients we serve look only at the HTTP status of a failed request (Chromium and Firefox back off on
// any non-200; the Go client reports the status code). Load control answers in the encoding asked for
// (LC-4), in binary as google.rpc.Status, the message gRPC-style APIs put errors in. Both carry the sbkit
// code (docs/errors.md) as a google.rpc.ErrorInfo detail.
//
// The other errors of the wire layer live here too: an answer a client cannot use, and Oblivious HTTP
// and binary HTTP messages that cannot be read.

import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../sbkit-error.ts';
import { delimitedSize, FieldWriter, int32Size, tagSize } from './protobuf/protobuf-writer.ts';
import { WireType } from './protobuf/wire-type.ts';

const CANONICAL_STATUSES = [
  'INVALID_ARGUMENT',
  'FAILED_PRECONDITION',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'NOT_FOUND',
  'RESOURCE_EXHAUSTED',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
] as const;
/** The google.rpc.Code names sbkit's server uses. */
export type CanonicalStatus = (typeof CANONICAL_STATUSES)[number];

// google.rpc.Code's numbers, for google.rpc.Status.code.
const CODE_NUMBER: Record<CanonicalStatus, number> = {
  INVALID_ARGUMENT: 3,
  FAILED_PRECONDITION: 9,
  UNAUTHENTICATED: 16,
  PERMISSION_DENIED: 7,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
};

// The HTTP status each code maps to in google.rpc.Code's documentation.
const HTTP_STATUS: Record<CanonicalStatus, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

export interface WireErrorOptions {
  /** Overrides the status's usual HTTP code where HTTP has a more precise one (405, 413). */
  httpStatus?: number;
  /** For 405: the methods the path accepts, for the `Allow` header. */
  allow?: readonly string[];
  /** For 503 and 429: when to come back, as `Retry-After` (LC-4). */
  retryAfterSeconds?: number;
  /** The failure behind the refusal, when it has a code more precise than the status (a URL that cannot be checked: SBKIT_INVALID_URL_…). */
  cause?: SbkitError;
}

/** A request the REST surface refuses, with what to tell the client. */
export class WireError extends SbkitError {
  /** Always `"WireError"`, as logs and stack traces show it. */
  override readonly name = 'WireError';
  /** `SBKIT_WIRE_` and the status in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'WIRE', CanonicalStatus>;
  /** Every code of this class. */
  static readonly codes = errorCodes('WIRE', CANONICAL_STATUSES);
  /** The HTTP status the refusal is answered with. */
  readonly httpStatus: number;
  /** For 405: the methods the path accepts. */
  readonly allow: readonly string[] | undefined;
  /** For 503 and 429: seconds until the client may ask again, sent as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;
  /** What the error body names as the reason: the code of the failure behind the refusal, or this error's. */
  readonly reason: string;

  constructor(
    /** The google.rpc.Code name the body carries. */
    readonly status: CanonicalStatus,
    message: string,
    options: WireErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = errorCode('WIRE', status);
    this.reason = options.cause?.code ?? this.code;
    this.httpStatus = options.httpStatus ?? HTTP_STATUS[status];
    this.allow = options.allow;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /**
   * The path exists but not for this method. HTTP 405 with an `Allow` header; google.rpc.Code has no
   * such status, and UNIMPLEMENTED ("not supported") is the one grpc-gateway reports for it.
   */
  static methodNotAllowed(method: string, path: string, allow: readonly string[]): WireError {
    return new WireError('UNIMPLEMENTED', `${path} does not accept ${method}; use ${allow.join(' or ')}`, { httpStatus: 405, allow });
  }

  /** A body over the server's size cap: HTTP 413, RESOURCE_EXHAUSTED. */
  static payloadTooLarge(what: string, size: number, limit: number): WireError {
    return new WireError('RESOURCE_EXHAUSTED', `${what} is ${size} bytes; this server accepts at most ${limit}`, { httpStatus: 413 });
  }
}

/**
 * The stem of the codes of the server's LoadControlError (server/guard/refusal.ts), the reason its 503
 * bodies name: by it a client tells a refusal for load from other answers (error-status.ts).
 */
export const LOAD_CONTROL_STEM = 'LOAD_CONTROL';

/** The google.rpc.Code name of a code number of the statuses sbkit's server answers; undefined for others. */
export function canonicalStatusName(code: number): CanonicalStatus | undefined {
  return (Object.keys(CODE_NUMBER) as CanonicalStatus[]).find((name) => CODE_NUMBER[name] === code);
}

/** An error as an HTTP answer, ready for any server framework. */
export interface RenderedWireError {
  httpStatus: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The domain of the `google.rpc.ErrorInfo` in error bodies: its reasons are the codes of docs/errors.md. */
const ERROR_DOMAIN = 'sbkit';
const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * The body Google's APIs answer errors with: google.rpc.Status, in JSON as `{"error": {…}}`, carrying
 * the sbkit code as a `google.rpc.ErrorInfo` detail (AIP-193), so that a program can branch on it.
 */
export function renderWireError(error: WireError, encoding: 'json' | 'protobuf' = 'json'): RenderedWireError {
  const headers: Record<string, string> = {
    'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json; charset=utf-8',
  };
  if (error.allow !== undefined) headers['allow'] = error.allow.join(', ');
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  if (encoding === 'protobuf') return { httpStatus: error.httpStatus, headers, body: statusMessage(error) };
  const json = {
    error: {
      code: error.httpStatus,
      message: error.message,
      status: error.status,
      details: [{ '@type': ERROR_INFO_TYPE, reason: error.reason, domain: ERROR_DOMAIN }],
    },
  };
  return {
    httpStatus: error.httpStatus,
    headers,
    body: new TextEncoder().encode(JSON.stringify(json)),
  };
}

/**
 * google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3; } in binary, the one
 * detail an Any { string type_url = 1; bytes value = 2; } of ErrorInfo { string reason = 1; string domain = 2; }.
 */
function statusMessage(error: WireError): Uint8Array {
  const utf8 = new TextEncoder();
  const message = utf8.encode(error.message);
  const typeUrl = utf8.encode(ERROR_INFO_TYPE);
  const reason = utf8.encode(error.reason);
  const domain = utf8.encode(ERROR_DOMAIN);
  const code = CODE_NUMBER[error.status];
  const errorInfoSize = delimitedSize(1, reason.length) + delimitedSize(2, domain.length);
  const anySize = delimitedSize(1, typeUrl.length) + delimitedSize(2, errorInfoSize);
  const out = new FieldWriter(tagSize(1) + int32Size(code) + delimitedSize(2, message.length) + delimitedSize(3, anySize));
  out.tag(1, WireType.varint);
  out.int32(code);
  out.bytesField(2, message);
  out.delimited(3, anySize);
  out.bytesField(1, typeUrl);
  out.delimited(2, errorInfoSize);
  out.bytesField(1, reason);
  out.bytesField(2, domain);
  return out.done();
}

const WIRE_RESPONSE_FAILURES = ['error-status', 'malformed-body'] as const;
/** Why a server answer is unusable: a status other than 200, or a 200 whose body could not be read. */
type WireResponseFailure = (typeof WIRE_RESPONSE_FAILURES)[number];

/**
 * A server answer that is not a usable response: a non-200 status (RF-4 counts every one as a failure,
 * so 204 and 304 are too), or a 200 whose body does not parse.
 */
export class WireResponseError extends SbkitError {
  /** Always `"WireResponseError"`, as logs and stack traces show it. */
  override readonly name = 'WireResponseError';
  /** `SBKIT_WIRE_RESPONSE_` and the kind in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'WIRE_RESPONSE', WireResponseFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('WIRE_RESPONSE', WIRE_RESPONSE_FAILURES);

  constructor(
    /** A status other than 200, or a 200 whose body could not be read. */
    readonly kind: WireResponseFailure,
    /** The status the server answered with. */
    readonly httpStatus: number,
    /** The google.rpc.Code name from a Google-style error body, when there was one. */
    readonly status: string | undefined,
    message: string,
    /**
     * The answer's `Retry-After` header as sent, when it had one: with a 429 or 503 the client waits
     * that long instead of backing off (docs/client-library.md).
     */
    readonly retryAfter?: string,
    /**
     * The reason of the body's `google.rpc.ErrorInfo`, when it had one: an sbkit server's code of the
     * failure behind the answer (`SBKIT_LOAD_CONTROL_RATE` for a refusal by load control), another
     * server's own (Google's `RATE_LIMIT_EXCEEDED`).
     */
    readonly reason?: string,
  ) {
    super(message);
    this.code = errorCode('WIRE_RESPONSE', kind);
  }
}

const OHTTP_FAILURES = [
  /** Not the encapsulation RFC 9458 describes: short, or its parts of the wrong length. */
  'malformed',
  /** Encrypted to a key configuration the gateway does not hold (rotated away): fetch the keys again. */
  'unknown-key',
  /** A KEM, KDF or AEAD the gateway does not offer. */
  'unsupported',
  /** The ciphertext does not decrypt: damaged, or not for this gateway. */
  'decryption',
  /** The gateway refuses a request not sent as `message/ohttp-req`. */
  'media-type',
  /** The gateway refuses an encapsulated request over its size limit. */
  'too-large',
  /** The gateway saw this encapsulation before and refuses to serve it twice. */
  'replay',
] as const;
/** Why an OHTTP message cannot be used. */
export type OhttpFailure = (typeof OHTTP_FAILURES)[number];

/** An OHTTP message that cannot be used; the gateway answers these with a 4xx problem naming the code. */
export class OhttpError extends SbkitError {
  /** Always `"OhttpError"`, as logs and stack traces show it. */
  override readonly name = 'OhttpError';
  /** `SBKIT_OHTTP_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<'OHTTP', OhttpFailure>;
  /** Every code of this class. */
  static readonly codes = errorCodes('OHTTP', OHTTP_FAILURES);

  constructor(
    /** What is wrong with the message, for callers to branch on. */
    readonly reason: OhttpFailure,
    message: string,
  ) {
    super(message);
    this.code = errorCode('OHTTP', reason);
  }
}

/** A binary HTTP message (RFC 9292) that cannot be read: the inner request or answer of Oblivious HTTP. */
export class BinaryHttpError extends SbkitError {
  /** Always `"BinaryHttpError"`, as logs and stack traces show it. */
  override readonly name = 'BinaryHttpError';
  /** Always `SBKIT_BINARY_HTTP`. */
  override readonly code = errorCode('BINARY_HTTP');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'BINARY_HTTP'>[] = [errorCode('BINARY_HTTP')];
}
