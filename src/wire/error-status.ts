// An HTTP answer other than 200 as the error the client reports, whatever RPC it answers and however the
// answer is decoded (the generated code on Node, the browser build's own reader).

import { WireResponseError } from './wire-error.ts';

// Google-style bodies (`{"error":{"code":…,"message":…,"status":…}}`) give the reason; anything else
// leaves just the status code.
export function errorFromStatus(response: { httpStatus: number; body: Uint8Array; retryAfter?: string | undefined }): WireResponseError {
  let message: string | undefined;
  let status: string | undefined;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(response.body));
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined;
    if (typeof error === 'object' && error !== null) {
      const fields = error as { message?: unknown; status?: unknown };
      if (typeof fields.message === 'string') message = fields.message.slice(0, 500);
      if (typeof fields.status === 'string') status = fields.status.slice(0, 64);
    }
  } catch {
    // Not JSON (an HTML error page, a proxy's text): the status code is all there is.
  }
  const label = status === undefined ? `HTTP ${response.httpStatus}` : `HTTP ${response.httpStatus} ${status}`;
  return new WireResponseError(
    'error-status',
    response.httpStatus,
    status,
    message === undefined ? `the server answered ${label}` : `the server answered ${label}: ${message}`,
    response.retryAfter,
  );
}
