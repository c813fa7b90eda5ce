// node-redis is loaded when a connection is first made: a server without Redis never loads it.

import { errorCode, SbkitError } from '../sbkit-error.ts';

/** The start of every Redis key of sbkit's, unless the operator chooses another (`--redis-prefix`). */
export const DEFAULT_KEY_PREFIX = 'sbkit:';

/** Back-off between reconnection attempts once Redis went away, capped: it comes back when it comes back. */
const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * Why Redis could not be reached: `invalid-url` for an address that cannot be used (a mistake of the
 * configuration), `unavailable` when Redis did not answer in time or refused.
 */
export class RedisConnectionError extends SbkitError {
  /** Always `"RedisConnectionError"`, as logs and stack traces show it. */
  override readonly name = 'RedisConnectionError';
  /** `SBKIT_REDIS_CONNECTION_` and the reason in capitals, underscores for hyphens (docs/errors.md). */
  override readonly code: string;
  /** Every code of this class. */
  static readonly codes: readonly string[] = ['invalid-url', 'unavailable'].map((reason) => errorCode('REDIS_CONNECTION', reason));

  constructor(
    /** A URL that cannot be used, or a Redis that does not answer. */
    readonly reason: 'invalid-url' | 'unavailable',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = errorCode('REDIS_CONNECTION', reason);
  }
}

export type RedisClient = Awaited<ReturnType<typeof createRedisClient>>;

async function createRedisClient(url: string, timeoutMs: number, hasConnected: () => boolean) {
  const { createClient, RESP_TYPES } = await import('redis');
  return createClient({
    url,
    // A command while Redis is away fails at once instead of waiting in a queue for it to come back:
    // callers report the failure, or try again later.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      // The first connection fails at once (connect() rejects); after it, reconnect with back-off forever.
      reconnectStrategy: (retries: number) => (hasConnected() ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) : false),
    },
    commandOptions: { timeout: timeoutMs },
  }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
}

/**
 * Connects to Redis at `url`, bounding the connection and every command by `timeoutMs`; replies come
 * as Buffers. Rejects with RedisConnectionError. `label` is the URL without credentials, for messages.
 */
export async function connectRedis(url: string, timeoutMs: number): Promise<{ client: RedisClient; label: string }> {
  const label = redactedUrl(url);
  let connected = false;
  let client: RedisClient;
  try {
    client = await createRedisClient(url, timeoutMs, () => connected);
  } catch (error) {
    throw new RedisConnectionError('invalid-url', `${label} is not a Redis URL (redis://host:port): ${(error as Error).message}`, {
      cause: error,
    });
  }
  // node-redis reports connection failures as 'error' events too: the rejection below says it.
  const ignore = () => {};
  client.on('error', ignore);
  try {
    await client.connect();
  } catch (error) {
    throw new RedisConnectionError('unavailable', `cannot connect to Redis at ${label}: ${(error as Error).message}`, { cause: error });
  } finally {
    client.off('error', ignore);
  }
  connected = true;
  return { client, label };
}

/** The URL as it may appear in logs: without user and password. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return JSON.stringify(url);
  }
}
