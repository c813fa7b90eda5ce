import type { OutgoingRequest } from '../wire/client-request.ts';
import type { WireResponse } from '../wire/client-response.ts';

export interface HttpSettings {
  /** `User-Agent`; SB-14 asks clients to identify themselves by it ("client id/version"). */
  userAgent: string;
  /** Whole request, connect to last byte. */
  timeoutMs: number;
  /** Larger answers are abandoned: a broken or hostile server cannot make the client buffer gigabytes. */
  maxResponseBytes: number;
}

/** No answer at all: the network failed, the request timed out, or the answer was too large. */
export class TransportError extends Error {
  override readonly name = 'TransportError';

  constructor(
    readonly kind: 'network' | 'timeout' | 'too-large',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Sends a request built by the wire layer and reads the answer within the settings' bounds. */
export async function sendRequest(request: OutgoingRequest, settings: HttpSettings): Promise<WireResponse> {
  const target = new URL(request.url);
  const where = `${target.origin}${target.pathname}`;
  let response: Response;
  const signal = AbortSignal.timeout(settings.timeoutMs);
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: { ...request.headers, 'user-agent': settings.userAgent },
      body: request.body,
      signal,
      redirect: 'error',
    });
  } catch (err) {
    throw failure(err, where, settings);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > settings.maxResponseBytes) {
    await response.body?.cancel();
    throw new TransportError('too-large', `${where} answered ${declared} bytes, more than the ${settings.maxResponseBytes} allowed`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > settings.maxResponseBytes) {
        await response.body?.cancel();
        throw new TransportError('too-large', `${where} answered more than the ${settings.maxResponseBytes} bytes allowed`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof TransportError) throw err;
    throw failure(err, where, settings);
  }
  const maxAge = /(?:^|[\s,])max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1];
  return {
    httpStatus: response.status,
    contentType: response.headers.get('content-type') ?? undefined,
    body: Buffer.concat(chunks),
    maxAgeSeconds: maxAge === undefined ? undefined : Number(maxAge),
  };
}

function failure(err: unknown, where: string, settings: HttpSettings): TransportError {
  const name = (err as { name?: string } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new TransportError('timeout', `${where} did not answer within ${settings.timeoutMs} ms`, { cause: err });
  }
  const reason = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
  return new TransportError('network', `cannot reach ${where}: ${reason}`, { cause: err });
}
