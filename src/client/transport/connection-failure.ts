// Why a connection to a server failed, in words that say what to do when the cause is one a person can
// fix: a certificate this machine does not trust, plain HTTP sent to a port that speaks TLS. Node's
// http and https modules (http.ts) and fetch (fetch-http.ts, `sbkit status`) report the same causes
// under different shapes: the error itself, or its `cause`.

/** Certificates verified against no CA this machine trusts: self-signed, or signed by a private CA. */
const UNTRUSTED_ISSUER = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
]);

/** A connection the server closed without a byte of answer: Node's http ("socket hang up"), fetch's undici ("other side closed"). */
const CLOSED_UNANSWERED = new Set(['ECONNRESET', 'UND_ERR_SOCKET']);

/** What went wrong, as the error or its cause says it, and what to do when the cause is a known one. */
export interface ConnectionFailure {
  reason: string;
  advice: string | undefined;
}

/** Why connecting to `url` failed with `error`. */
export function connectionFailure(error: unknown, url: URL): ConnectionFailure {
  const cause = (error as { cause?: unknown }).cause;
  const coded = [cause, error].find((part) => typeof (part as { code?: unknown } | undefined)?.code === 'string') as
    { code: string; message?: unknown } | undefined;
  const innermost = (cause ?? error) as { message?: unknown };
  // Node's AggregateError of a connection tried on several addresses has a code and an empty message.
  const reason = [coded?.message, innermost.message, coded?.code].find((text): text is string => typeof text === 'string' && text !== '');
  return { reason: reason ?? String(error), advice: adviceFor(coded?.code, url) };
}

/** `connectionFailure` as one line: the reason, then the advice. */
export function describeConnectionFailure(error: unknown, url: URL): string {
  const { reason, advice } = connectionFailure(error, url);
  return advice === undefined ? reason : `${reason}; ${advice}`;
}

function adviceFor(code: string | undefined, url: URL): string | undefined {
  if (code === undefined) return undefined;
  if (UNTRUSTED_ISSUER.has(code)) {
    return (
      "this machine does not trust the server's certificate: give Node the CA that signed it (a self-signed " +
      'certificate is its own CA) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or have the server use a certificate from a CA this machine trusts'
    );
  }
  if (code === 'CERT_HAS_EXPIRED') return "the server's certificate has expired: it must be renewed";
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'use a host name the certificate is issued for';
  if (url.protocol === 'http:' && CLOSED_UNANSWERED.has(code)) {
    const https = new URL(url.href);
    https.protocol = 'https:';
    return `the server closed the connection unanswered, as a server that speaks TLS does to plain HTTP: it seems to speak TLS; use ${https.origin}`;
  }
  return undefined;
}
