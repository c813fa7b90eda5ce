// Errors the way Google's REST front end reports them: an HTTP status plus the JSON body
// `{"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}` (the shape Safe Browsing itself
// answers with, e.g. google-api-go-client issue #2534). Request errors are JSON even for requests that
// asked for protobuf: no source available here says what binary form Google sends for them, and the
// clients we serve look only at the HTTP status of a failed request (Chromium and Firefox back off on
// any non-200; the Go client reports the status code). Load control answers in the encoding asked for
// (LC-4), in binary as google.rpc.Status, the message gRPC-style APIs put errors in.

/** The google.rpc.Code names sbkit's server uses. */
export type CanonicalStatus =
  | 'INVALID_ARGUMENT'
  | 'FAILED_PRECONDITION'
  | 'OUT_OF_RANGE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  | 'UNAVAILABLE';

// google.rpc.Code's numbers, for google.rpc.Status.code.
const CODE_NUMBER: Record<CanonicalStatus, number> = {
  INVALID_ARGUMENT: 3,
  FAILED_PRECONDITION: 9,
  OUT_OF_RANGE: 11,
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
  OUT_OF_RANGE: 400,
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
}

/** A request the REST surface refuses, with what to tell the client. */
export class WireError extends Error {
  /** Always `"WireError"`, as logs and stack traces show it. */
  override readonly name = 'WireError';
  readonly httpStatus: number;
  readonly allow: readonly string[] | undefined;

  constructor(
    readonly status: CanonicalStatus,
    message: string,
    options: WireErrorOptions = {},
  ) {
    super(message);
    this.httpStatus = options.httpStatus ?? HTTP_STATUS[status];
    this.allow = options.allow;
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

/** An error as an HTTP answer, ready for any server framework. */
export interface RenderedWireError {
  httpStatus: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export function renderWireError(error: WireError, encoding: 'json' | 'protobuf' = 'json'): RenderedWireError {
  const headers: Record<string, string> = {
    'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json; charset=utf-8',
  };
  if (error.allow !== undefined) headers['allow'] = error.allow.join(', ');
  if (encoding === 'protobuf')
    return { httpStatus: error.httpStatus, headers, body: statusMessage(CODE_NUMBER[error.status], error.message) };
  const json = { error: { code: error.httpStatus, message: error.message, status: error.status } };
  return {
    httpStatus: error.httpStatus,
    headers,
    body: new TextEncoder().encode(JSON.stringify(json)),
  };
}

/** google.rpc.Status { int32 code = 1; string message = 2; } in binary; codes are small and positive. */
function statusMessage(code: number, message: string): Uint8Array {
  const text = Buffer.from(message, 'utf8');
  const length: number[] = [];
  for (let rest = text.length; ; rest >>>= 7) {
    if (rest < 0x80) {
      length.push(rest);
      break;
    }
    length.push((rest & 0x7f) | 0x80);
  }
  return Uint8Array.from([0x08, code, 0x12, ...length, ...text]);
}
