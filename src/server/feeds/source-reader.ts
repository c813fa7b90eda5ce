import { createReadStream } from 'node:fs';
import { VERSION } from '../../version.ts';
import type { FeedLimits } from './config.ts';
import { SourceError } from './source-error.ts';

// Reading a source's bytes within bounds: a feed that grew huge, or a server that never stops sending,
// must not take the server's memory, and one that never answers must not hold a refresh forever.

/** Feeds are UTF-8 text; the decoder drops a byte order mark and replaces invalid bytes with U+FFFD. */
function decodeText(chunks: Uint8Array[], size: number): string {
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks, size));
}

/** Collects chunks until the end, or throws 'too-large' as soon as more than `maxBytes` arrived. */
async function collect(chunks: AsyncIterable<Uint8Array>, maxBytes: number, label: string): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    // Leaving the loop early closes the stream (the iterator's return() cancels it).
    if (size > maxBytes)
      throw new SourceError(label, 'too-large', `is larger than the ${maxBytes} bytes allowed; raise feedMaxMegabytes if it is right`);
    parts.push(chunk);
  }
  return decodeText(parts, size);
}

/** The text of a local file, at most `limits.maxBytes` long. */
export async function readFileSource(path: string, limits: FeedLimits): Promise<string> {
  try {
    return await collect(createReadStream(path), limits.maxBytes, path);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new SourceError(path, 'not-found', 'no such file; check the path in the configuration (relative paths start at its folder)', {
        cause: error,
      });
    throw new SourceError(path, 'unreadable', `cannot read the file: ${(error as Error).message}`, { cause: error });
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
 * fetch refuses URLs with credentials, so `https://user:password@host/feed` — how private feeds are
 * often given — is sent as the URL without them and HTTP Basic authentication (RFC 7617).
 */
function requestHeaders(url: URL): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': `sbkit/${VERSION}` };
  if (url.username !== '' || url.password !== '') {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return headers;
}

/**
 * The body of a GET of an http(s) URL, redirects followed (feed hosts move files to CDNs), within
 * `limits.timeoutMs` from the request to the last byte and `limits.maxBytes` of decoded body (gzip is
 * undone by fetch, so a small compressed answer cannot expand without bound).
 */
export async function readUrlSource(url: string, limits: FeedLimits): Promise<string> {
  const target = new URL(url);
  const label = withoutCredentials(target).href;
  try {
    const response = await fetch(withoutCredentials(target), {
      signal: AbortSignal.timeout(limits.timeoutMs),
      redirect: 'follow',
      headers: requestHeaders(target),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new SourceError(label, 'http-status', `the server answered HTTP ${response.status} ${response.statusText}; check the URL`);
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limits.maxBytes) {
      await response.body?.cancel();
      throw new SourceError(
        label,
        'too-large',
        `announces ${declared} bytes, more than the ${limits.maxBytes} allowed; raise feedMaxMegabytes if it is right`,
      );
    }
    return response.body === null ? '' : await collect(response.body, limits.maxBytes, label);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new SourceError(
        label,
        'timeout',
        `no complete answer within ${limits.timeoutMs} ms; raise feedTimeoutSeconds if the feed is slow`,
        { cause: error },
      );
    }
    const reason = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new SourceError(label, 'network', `cannot download: ${reason}`, { cause: error });
  }
}
