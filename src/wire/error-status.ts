// An HTTP answer other than 200 as the error the client reports, whatever RPC it answers and however the
// answer is decoded (the generated code on Node, the browser build's own reader). The body is
// google.rpc.Status, in JSON as Google's REST front end sends it (`{"error":{…}}`) or in binary as
// sbkit's load control answers a client that asked for protobuf (LC-4; of its codes, only those sbkit
// answers with are named). From it come the status's name, the server's message and the reason of its
// `google.rpc.ErrorInfo`, which for an sbkit server is the code of the failure behind the answer.

import { readMessage } from './protobuf/protobuf-reader.ts';
import { parseRetryAfter } from './retry-after.ts';
import { errorCode } from '../sbkit-error.ts';
import { canonicalStatusName, LOAD_CONTROL_STEM, WireResponseError } from './wire-error.ts';

/** What an error body says, each part when it says it. */
interface ErrorBody {
  status?: string;
  message?: string;
  reason?: string;
}

const ERROR_INFO_TYPE = /(^|\/)google\.rpc\.ErrorInfo$/;
/** What a server's words may take of a message; a body is no place for an essay. */
const MAX_MESSAGE = 500;
const MAX_NAME = 64;

/** The statuses that refuse a request for now, rather than for good: too many requests, unavailable. */
const REFUSALS = new Set([429, 503]);
/** The start of the reasons of sbkit's load control (LoadControlError's codes). */
const LOAD_CONTROL = `${errorCode(LOAD_CONTROL_STEM)}_`;

/**
 * The error for an answer other than 200: its status, what the body says, and for a 429 or 503 when to
 * ask again, as its Retry-After says (without one, the client backs off, RF-4). A refusal by sbkit's
 * load control (LC-4) is said to be one, with its reason.
 */
export function errorFromStatus(response: {
  httpStatus: number;
  contentType?: string | undefined;
  body: Uint8Array;
  retryAfter?: string | undefined;
}): WireResponseError {
  const body = (/protobuf/i.test(response.contentType ?? '') ? binaryErrorBody(response.body) : jsonErrorBody(response.body)) ?? {};
  const label = body.status === undefined ? `HTTP ${response.httpStatus}` : `HTTP ${response.httpStatus} ${body.status}`;
  const told = body.message === undefined ? '' : `: ${body.message}`;
  const said =
    body.reason?.startsWith(LOAD_CONTROL) === true ? `: its load control refused the request for load (${body.reason}${told})` : told;
  const when = REFUSALS.has(response.httpStatus) ? askAgain(response.retryAfter) : '';
  return new WireResponseError(
    'error-status',
    response.httpStatus,
    body.status,
    `the server answered ${label}${said}${when}`,
    response.retryAfter,
    body.reason,
  );
}

/** `{"error": {"message", "status", "details": [ErrorInfo…]}}`, or undefined for another body (an HTML page, a proxy's text). */
function jsonErrorBody(bytes: Uint8Array): ErrorBody | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
  if (typeof error !== 'object' || error === null) return undefined;
  const { message, status, details } = error as { message?: unknown; status?: unknown; details?: unknown };
  const info = Array.isArray(details)
    ? (details as unknown[]).find(
        (detail): detail is { reason?: unknown } =>
          typeof detail === 'object' && detail !== null && ERROR_INFO_TYPE.test(String((detail as { '@type'?: unknown })['@type'])),
      )
    : undefined;
  return {
    ...(typeof message === 'string' ? { message: message.slice(0, MAX_MESSAGE) } : {}),
    ...(typeof status === 'string' ? { status: status.slice(0, MAX_NAME) } : {}),
    ...(typeof info?.reason === 'string' ? { reason: info.reason.slice(0, MAX_NAME) } : {}),
  };
}

/**
 * google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3; }, an ErrorInfo
 * { string reason = 1; … } among the details as Any { string type_url = 1; bytes value = 2; }; undefined
 * for bytes that are no such message.
 */
function binaryErrorBody(bytes: Uint8Array): ErrorBody | undefined {
  const what = 'the error body';
  try {
    return readMessage<ErrorBody>(bytes, what, {}, (status, body) => {
      if (status.field === 1) body.status = canonicalStatusName(status.int32());
      else if (status.field === 2) body.message = status.string().slice(0, MAX_MESSAGE);
      else if (status.field === 3) {
        const any = readMessage<{ type?: string; value?: Uint8Array }>(status.bytesField(), what, {}, (field, detail) => {
          if (field.field === 1) detail.type = field.string();
          else if (field.field === 2) detail.value = field.bytesField();
          else field.skip();
        });
        if (any.value === undefined || !ERROR_INFO_TYPE.test(any.type ?? '')) return;
        readMessage(any.value, what, body, (field, info) => {
          if (field.field === 1) info.reason = field.string().slice(0, MAX_NAME);
          else field.skip();
        });
      } else status.skip();
    });
  } catch {
    // Not a Status after all: the HTTP status is all there is.
    return undefined;
  }
}

/**
 * When a refusal's `Retry-After` says to ask again, as the message words it: in seconds, or at the date it
 * names. Read without a clock: the wait itself is worked out on the client's (retryAfterOfRefusal).
 */
function askAgain(retryAfter: string | undefined): string {
  const text = retryAfter?.trim() ?? '';
  // A date parses to a delay at any moment; 0 stands for now, so only whether it parses is asked here.
  if (parseRetryAfter(text, 0) === undefined) return '';
  return /^\d+$/.test(text) ? `; ask again in ${text} s, as its Retry-After says` : `; ask again after ${text}, as its Retry-After says`;
}
