import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { type IncomingMessage, type OutgoingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { pipeline, type Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { type Clock, deadline, systemClock } from '../../../time/clock.ts';
import { VERSION } from '../../../version.ts';
import type { FeedLimits } from '../../config/config.ts';
import { conditionalHeaders, type FeedValidators, hasValidators, refreshedValidators, validatorsOf } from './conditional-fetch.ts';
import { excerpt, quotedExcerpt } from '../formats/excerpt.ts';
import { type FeedBytes, FeedBytesWriter, lineStartFrom, releasableBytes } from './feed-bytes.ts';
import { nonPublicKind, NonPublicAddressError, publicOnlyLookup } from './private-address.ts';
import { SourceError } from './source-error.ts';

// Reading a source's bytes within bounds: a feed that grew huge, or a server that never stops sending,
// must not take the server's memory, and one that never answers must not hold a refresh forever. A feed's
// server must not steer the reader elsewhere either: redirects are few, never from https to http, and
// never to the machine itself or its private network unless the operator allows it (private-address.ts).
// What the server sent reaches messages only as short escaped excerpts (excerpt.ts). A compressed answer
// is bounded twice: its decoded size (a gzip bomb expands a thousandfold) and its size on the wire (a
// stream of empty deflate blocks expands to nothing, for ever).

/** The settings that raise a limit, as messages name them. */
const LIMIT_SETTINGS = { size: 'maxMegabytes (or feedMaxMegabytes)', time: 'timeoutSeconds (or feedTimeoutSeconds)' };

/**
 * Collects chunks until the end, or throws 'too-large' as soon as more than `maxBytes` arrived. The bytes
 * stay bytes: worker threads decode them (feed-part.ts), since decoding hundreds of megabytes here would
 * hold the event loop (S5). Each chunk is copied into the feed's one buffer as it arrives (feed-bytes.ts),
 * so the feed is never held twice.
 */
async function collect(chunks: AsyncIterable<Uint8Array>, maxBytes: number, label: string): Promise<FeedBytes> {
  const feed = new FeedBytesWriter(maxBytes);
  for await (const chunk of chunks) {
    // Leaving the loop early closes the stream (the iterator's return() cancels it).
    if (feed.size + chunk.length > maxBytes) throw tooLarge(label, maxBytes);
    feed.write(chunk);
  }
  return feed.finish();
}

function tooLarge(label: string, maxBytes: number): SourceError {
  return new SourceError(label, 'too-large', `is larger than the ${maxBytes} bytes allowed; raise ${LIMIT_SETTINGS.size} if it is right`);
}

/** A file is read this much at a time, straight into its parts: a few milliseconds of hashing each. */
const FILE_READ_BYTES = 1 << 20;
/** Bytes of a file searched at a time for the line end a part ends at. */
const CUT_WINDOW_BYTES = 64 * 1024;
/** UTF-8's byte order mark: what the search for a cut also reads past a window's end (lineStartFrom). */
const BYTE_ORDER_MARK_BYTES = 3;

/**
 * The bytes of a local file, at most `limits.maxBytes`, in `cut.parts` parts of whole lines of at least
 * `cut.minPartBytes` (feed-bytes.ts lineCuts), each read straight into an ArrayBuffer of its own, which
 * its worker takes whole: the feed is never held twice. Its size is the one it had when opened; a file
 * that shrinks meanwhile fails as `unreadable`, and is read again at the next check. What is no regular
 * file (a named pipe) is read to its end in one part.
 */
export async function readFileSource(path: string, limits: FeedLimits, cut = { parts: 1, minPartBytes: 1 }): Promise<FeedBytes> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, 'r');
    const stats = await file.stat();
    // A pipe or device has no size to cut by: read as a download is.
    if (!stats.isFile()) return await collect(file.createReadStream({ autoClose: false }), limits.maxBytes, path);
    const size = stats.size;
    if (size > limits.maxBytes) throw tooLarge(path, limits.maxBytes);
    const count = Math.max(1, Math.min(cut.parts, Math.floor(size / Math.max(1, cut.minPartBytes))));
    const starts = [0];
    for (let k = 1; k < count; k++) {
      const start = await fileLineStart(file, Math.max(starts.at(-1)!, Math.floor((size * k) / count)), size, path);
      if (start >= size) break;
      starts.push(start);
    }
    const hash = createHash('sha256');
    const parts: Uint8Array[] = [];
    for (const [k, start] of starts.entries()) {
      const part = releasableBytes((starts[k + 1] ?? size) - start);
      for (let at = 0; at < part.length; at += FILE_READ_BYTES) {
        const piece = part.subarray(at, at + FILE_READ_BYTES);
        await readFully(file, piece, start + at, path);
        hash.update(piece);
      }
      parts.push(part);
    }
    return { parts, size, digest: hash.digest('base64') };
  } catch (error) {
    if (error instanceof SourceError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new SourceError(path, 'not-found', 'no such file; check the path in the configuration (relative paths start at its folder)', {
        cause: error,
      });
    throw new SourceError(path, 'unreadable', `cannot read the file: ${(error as Error).message}`, { cause: error });
  } finally {
    await file?.close();
  }
}

/** Where the first line at or after `from` starts in the file, as lineStartFrom finds it, searching a window at a time; `size` when none does. */
async function fileLineStart(file: FileHandle, from: number, size: number, path: string): Promise<number> {
  for (let at = from; at < size; at += CUT_WINDOW_BYTES) {
    // A window reads past its end as far as a byte order mark reaches, so a line starting at its end is judged whole.
    const window = new Uint8Array(Math.min(CUT_WINDOW_BYTES + BYTE_ORDER_MARK_BYTES, size - at));
    await readFully(file, window, at, path);
    const start = lineStartFrom(window, 0);
    if (start <= CUT_WINDOW_BYTES && start < window.length) return at + start;
  }
  return size;
}

/** Fills `into` from `position` of the file; SourceError (`unreadable`) when the file ends first (it shrank). */
async function readFully(file: FileHandle, into: Uint8Array, position: number, path: string): Promise<void> {
  for (let filled = 0; filled < into.length;) {
    const { bytesRead } = await file.read(into, filled, into.length - filled, position + filled);
    if (bytesRead === 0) throw new SourceError(path, 'unreadable', 'the file shrank while it was read; it is read again at its next check');
    filled += bytesRead;
  }
}

/** A URL as it may appear in logs: without user name and password. */
export function urlLabel(url: string): string {
  return withoutCredentials(new URL(url)).href;
}

function withoutCredentials(url: URL): URL {
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  return bare;
}

/**
 * URLs with credentials (`https://user:password@host/feed`, how private feeds are often given) are sent
 * without them, as HTTP Basic authentication (RFC 7617), and only to the configured origin: a redirect
 * elsewhere does not take them along.
 */
function requestHeaders(url: URL, configured: URL, validators: FeedValidators | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    'user-agent': `sbkit/${VERSION}`,
    'accept-encoding': 'gzip, deflate, br',
    ...conditionalHeaders(validators),
  };
  if (url.origin === configured.origin && (configured.username !== '' || configured.password !== '')) {
    const credentials = `${decodeURIComponent(configured.username)}:${decodeURIComponent(configured.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return headers;
}

/** Feed hosts move files to CDNs, so redirects are followed; this many at most. */
export const MAX_FEED_REDIRECTS = 3;
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Where a feed may be downloaded from. The configured URL is trusted as written when its host is an IP
 * address: the operator named that machine (and port). A host name, `localhost` included, is checked when
 * the connection is made, since what it resolves to is not what the operator wrote; so is every redirect
 * target outside the trusted origin.
 */
interface AddressPolicy {
  /** The operator allows any address for this source. */
  allowPrivateAddresses: boolean;
  /** The origin the operator wrote with an IP address, reached without checks. */
  trustedOrigin: string | undefined;
}

function addressPolicy(configured: URL, allowPrivateAddresses: boolean): AddressPolicy {
  const writtenAsAddress = isIP(configured.hostname.replace(/^\[(.*)\]$/, '$1')) !== 0;
  return { allowPrivateAddresses, trustedOrigin: writtenAsAddress ? configured.origin : undefined };
}

/** Whether connecting to `url` needs its address checked; throws NonPublicAddressError for a non-public IP literal. */
function needsCheck(url: URL, policy: AddressPolicy): boolean {
  if (policy.allowPrivateAddresses || url.origin === policy.trustedOrigin) return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0) return true;
  // An IP literal is connected to without a lookup: checked here.
  const kind = nonPublicKind(host);
  if (kind !== undefined) throw new NonPublicAddressError(host, host, kind);
  return false;
}

/** One GET, answered with the status and headers; the body is still to be read. */
function get(url: URL, headers: OutgoingHttpHeaders, signal: AbortSignal, checked: boolean): Promise<IncomingMessage> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // A connection of its own (no agent's pool): a kept-alive socket must not skip the address check.
    const outgoing = send(url, { headers, signal, agent: false, ...(checked ? { lookup: publicOnlyLookup } : {}) }, resolve);
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** How much of a compressed answer may arrive: the decoded limit, and room for a coding's overhead. */
const CODING_OVERHEAD_BYTES = 64 * 1024;

/** Counts the bytes passing through into `received`, and fails once more than `maxBytes` passed. */
function wireCounter(received: { bytes: number }, maxBytes: number, label: string): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received.bytes += chunk.length;
      if (received.bytes > maxBytes) {
        done(
          new SourceError(label, 'too-large', `sent more than ${maxBytes} compressed bytes; raise ${LIMIT_SETTINGS.size} if it is right`),
        );
      } else done(null, chunk);
    },
  });
}

/**
 * The body without its content coding; undefined for a coding that was not asked for. The bytes as
 * received are counted into `received`.
 */
function decodedBody(response: IncomingMessage, received: { bytes: number }, limits: FeedLimits, label: string): Readable | undefined {
  const coding = (response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') {
    response.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    return response;
  }
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  // Errors of either stream end up in the decoder, whose reader sees them.
  return decoder === undefined
    ? undefined
    : pipeline(response, wireCounter(received, limits.maxBytes + CODING_OVERHEAD_BYTES, label), decoder, () => undefined);
}

/** The next URL of a redirect, or SourceError when it may not be followed. `location` is the server's text. */
function redirectTarget(label: string, from: URL, location: string, redirects: number): URL {
  if (redirects >= MAX_FEED_REDIRECTS) {
    throw new SourceError(label, 'redirect', `redirects more than ${MAX_FEED_REDIRECTS} times; configure the URL the feed is at`);
  }
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new SourceError(label, 'redirect', `redirects to ${quotedExcerpt(location)}, which is no URL`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new SourceError(label, 'redirect', `redirects to ${quotedExcerpt(location)}, which is not an http(s) URL`);
  }
  if (from.protocol === 'https:' && next.protocol === 'http:') {
    throw new SourceError(
      label,
      'redirect',
      `redirects from https to plain http (${quotedExcerpt(withoutCredentials(next).href)}); a feed fetched over https is not downgraded`,
    );
  }
  return withoutCredentials(next);
}

/** What a GET of a feed's URL brought. */
export type UrlAnswer =
  /** 304: the feed is as it was when `validators` were sent. */
  | { modified: false; validators: FeedValidators }
  /** 2xx: the feed's bytes, without their content coding, and the validators of this version. */
  | { modified: true; body: FeedBytes; validators: FeedValidators };

/** A longer Retry-After than this is no hint for a feed reader (its refresh interval caps the wait anyway). */
const MAX_RETRY_AFTER_SECONDS = 7 * 24 * 3600;

/** RFC 9110 §10.2.3: seconds or an HTTP date (counted from `now`, wall time); undefined when absent or neither. Clamped to a week. */
function retryAfterSeconds(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : (Date.parse(text) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil(seconds)));
}

/**
 * A GET of an http(s) URL, within `limits.timeoutMs` from the first request to the last byte and
 * `limits.maxBytes` of decoded body (gzip, deflate and br are undone here, so a small compressed answer
 * cannot expand without bound). With `validators` from the last good answer the GET is conditional and a
 * 304 comes back as `modified: false`. At most MAX_FEED_REDIRECTS redirects are followed, never from
 * https to http; no connection goes to a loopback, private, link-local, unique-local or unspecified
 * address unless `allowPrivateAddresses` or the operator wrote that address in the URL (AddressPolicy).
 * The body's bytes as sent (compressed) are counted into `received`, also when the answer fails. An HTTP
 * date in Retry-After is read on `clock`.
 */
export async function readUrlSource(
  url: string,
  limits: FeedLimits,
  allowPrivateAddresses = false,
  validators?: FeedValidators,
  received: { bytes: number } = { bytes: 0 },
  clock: Clock = systemClock,
): Promise<UrlAnswer> {
  const configured = new URL(url);
  const label = withoutCredentials(configured).href;
  const policy = addressPolicy(configured, allowPrivateAddresses);
  const timeout = deadline(clock, limits.timeoutMs);
  const signal = limits.signal === undefined ? timeout.signal : AbortSignal.any([timeout.signal, limits.signal]);
  const conditional = hasValidators(validators) ? validators : undefined;
  let target = withoutCredentials(configured);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await get(target, requestHeaders(target, configured, conditional), signal, needsCheck(target, policy));
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        response.destroy();
        target = redirectTarget(label, target, location, redirects);
        continue;
      }
      if (status === 304) {
        response.destroy();
        if (conditional !== undefined) {
          return { modified: false, validators: refreshedValidators(conditional, validatorsOf(response.headers)) };
        }
        throw new SourceError(label, 'http-status', 'the server answered HTTP 304 (not modified) to a request that was not conditional', {
          httpStatus: status,
        });
      }
      if (status < 200 || status > 299) {
        response.destroy();
        const retryAfter = retryAfterSeconds(response.headers['retry-after'], clock.now());
        // The status text is the server's words: left out.
        throw new SourceError(label, 'http-status', `the server answered HTTP ${status}; check the URL`, {
          httpStatus: status,
          ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
        });
      }
      const declared = Number(response.headers['content-length'] ?? NaN);
      if (declared > limits.maxBytes) {
        response.destroy();
        throw new SourceError(
          label,
          'too-large',
          `announces ${declared} bytes, more than the ${limits.maxBytes} allowed; raise ${LIMIT_SETTINGS.size} if it is right`,
        );
      }
      const body = decodedBody(response, received, limits, label);
      if (body === undefined) {
        response.destroy();
        const coding = quotedExcerpt(String(response.headers['content-encoding']));
        throw new SourceError(label, 'network', `answered in the content coding ${coding}, which was not asked for`);
      }
      return { modified: true, body: await collect(body, limits.maxBytes, label), validators: validatorsOf(response.headers) };
    }
  } catch (error) {
    throw sourceFailure(error, label, limits, signal);
  } finally {
    timeout.clear();
  }
}

/** What went wrong with a download, as a SourceError whose message holds no more of the server's words than an excerpt. */
function sourceFailure(error: unknown, label: string, limits: FeedLimits, signal: AbortSignal): SourceError {
  if (error instanceof SourceError) return error;
  if (error instanceof NonPublicAddressError) {
    const kind = `${error.kind === 'unspecified' ? 'an' : 'a'} ${error.kind} address`;
    const where =
      error.host === error.address ? `${error.address} is ${kind}` : `${quotedExcerpt(error.host)} is at ${error.address}, ${kind}`;
    return new SourceError(
      label,
      'forbidden-address',
      `${where}, where feeds are not fetched from unless the source has "allowPrivateAddresses": true`,
      { cause: error },
    );
  }
  if (limits.signal?.aborted === true) {
    return new SourceError(label, 'network', 'download abandoned: the server is stopping', { cause: error });
  }
  if (signal.aborted) {
    return new SourceError(
      label,
      'timeout',
      `no complete answer within ${limits.timeoutMs / 1000} s; raise ${LIMIT_SETTINGS.time} if the feed is slow`,
      { cause: error },
    );
  }
  // A body cut short: the connection closed before the announced length, or the last chunk, arrived.
  if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'Z_BUF_ERROR') {
    return new SourceError(label, 'network', 'the answer ended before the whole feed arrived (the connection closed early)', {
      cause: error,
    });
  }
  // Node's messages can quote the server (a TLS certificate's names, a malformed header).
  return new SourceError(label, 'network', `cannot download: ${excerpt((error as Error).message)}`, { cause: error });
}
