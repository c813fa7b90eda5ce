// LC-4: a request that is not served gets HTTP 503 with Retry-After. Callers of the API get a
// Google-style error in the encoding they asked for, its reason the LoadControlError code of why
// (SBKIT_LOAD_CONTROL_RATE…), so that a client can say it was refused for load; people (the web pages)
// get a page that says the service is under high load.

import { createHash } from 'node:crypto';
import { chooseResponseEncoding, type WireEncoding } from '../../wire/encoding.ts';
import { type ErrorCode, errorCode, errorCodes, SbkitError } from '../../sbkit-error.ts';
import { LOAD_CONTROL_STEM, renderWireError, WireError } from '../../wire/wire-error.ts';
import { EVERY_ANSWER_HEADERS, NOT_KEPT } from '../http/replies.ts';
import type { RefusalReason } from './load-gate.ts';

export interface Refusal {
  status: 503;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** When to come back, per reason: the window or interval that refused the request. */
export function retryAfterSeconds(
  reason: RefusalReason,
  windows: { crawlerIntervalMs: number; anyCrawlerIntervalMs: number; burstWindowMs: number; delayMs: number },
): number {
  const ms = {
    paused: 60_000,
    load: Math.max(windows.delayMs, 1000),
    'crawler-recent': windows.crawlerIntervalMs,
    'crawlers-busy': windows.anyCrawlerIntervalMs,
    rate: windows.burstWindowMs,
    'address-rate': windows.burstWindowMs,
    'address-busy': 1000,
  }[reason];
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Programs' paths: the APIs and the Oblivious HTTP resources, whose callers cannot show a page. */
const API_PATH = /^\/(?:v(?:1|4|5|5alpha1)\/|ohttp-)/;

const MESSAGES: Record<RefusalReason, string> = {
  paused: 'the service is paused by its operator',
  load: 'the service is under high load',
  'crawler-recent': 'this crawler was served less than a moment ago',
  'crawlers-busy': 'another crawler was served a moment ago',
  rate: 'too many requests from this client in a short time',
  'address-rate': 'too many requests from this network address in a short time',
  'address-busy': 'too many requests from this network address under way at once',
};

/**
 * The failure behind load control's 503 (LC-4): never thrown, it gives the refusal's body its reason,
 * `SBKIT_LOAD_CONTROL_` and why, which a client reads back (WireResponseError's `reason`) to say that
 * the server refused for load, and why.
 */
export class LoadControlError extends SbkitError {
  /** Always `"LoadControlError"`, as logs and stack traces show it. */
  override readonly name = 'LoadControlError';
  /** `SBKIT_LOAD_CONTROL_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: ErrorCode<typeof LOAD_CONTROL_STEM, RefusalReason>;
  /** Every code of this class. */
  static readonly codes = errorCodes(LOAD_CONTROL_STEM, Object.keys(MESSAGES) as RefusalReason[]);

  constructor(
    /** Why the request was refused: the operator paused the service, the load, a rate, a crawler's turn. */
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.code = errorCode(LOAD_CONTROL_STEM, reason);
  }
}

/** The 503 for a refused request to `url` (path and query) with these headers. */
export function refusal(
  reason: RefusalReason,
  retryAfter: number,
  url: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Refusal {
  const message = `${MESSAGES[reason]}; try again in ${retryAfter} s`;
  // Sent before any route's own hooks could add them: a refusal carries every header an answer needs.
  const always = { ...EVERY_ANSWER_HEADERS, 'cache-control': NOT_KEPT, 'retry-after': String(retryAfter) };
  if (API_PATH.test(url)) {
    const why = new LoadControlError(reason, message);
    const rendered = renderWireError(new WireError('UNAVAILABLE', message, { cause: why }), requestedEncoding(url, headers));
    return { status: 503, headers: { ...rendered.headers, ...always }, body: rendered.body };
  }
  return {
    status: 503,
    headers: { 'content-type': 'text/html; charset=utf-8', ...always, ...REFUSAL_PAGE_HEADERS },
    body: Buffer.from(page(message)),
  };
}

/** The encoding the request asks for, read from its URL and headers only (the body is not read yet). */
function requestedEncoding(url: string, headers: Readonly<Record<string, string | string[] | undefined>>): WireEncoding {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  try {
    const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    return chooseResponseEncoding({
      alt: query.get('alt') ?? query.get('$alt') ?? undefined,
      envelopeContentType: query.get('$ct') ?? undefined,
      contentType: header('content-type'),
      accept: header('accept'),
      googleApiClient: header('x-goog-api-client') !== undefined,
    });
  } catch {
    // An unusable alt= is the request's own error; the refusal still has to say something.
    return 'json';
  }
}

/** The refusal page's stylesheet, which the Content-Security-Policy allows by its hash (here, and web/security-headers.ts). */
export const REFUSAL_STYLE = 'body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}';

/** The refusal page may show its own stylesheet and nothing else, and be framed by no one (as the pages, web/security-headers.ts). */
const REFUSAL_PAGE_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(REFUSAL_STYLE).digest('base64')}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
};

function page(message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Service under high load</title>
<style>${REFUSAL_STYLE}</style></head>
<body>
<h1>The service is under high load</h1>
<p>${message.replace(/[<>&]/g, '')}. Your request was not served; please try again shortly.</p>
</body>
</html>
`;
}
