import type { FastifyInstance } from 'fastify';
import { type AppOptions, createApp } from './app.ts';
import { errorCode, SbkitError } from '../sbkit-error.ts';

/** The address cannot be listened on: taken, not this machine's, or not allowed. */
export class ListenError extends SbkitError {
  /** Always `"ListenError"`, as logs and stack traces show it. */
  override readonly name = 'ListenError';
  /** Always `SBKIT_LISTEN`. */
  override readonly code = errorCode('LISTEN');
  /** Every code of this class. */
  static readonly codes: readonly string[] = [errorCode('LISTEN')];

  constructor(host: string, port: number, cause: unknown) {
    super(`cannot listen on ${host}:${port}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** What {@link createServer} serves, and where it listens. */
export interface ServerOptions extends AppOptions {
  /** Address to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Port to listen on (0: any free port); 8080 by default. */
  port?: number;
}

/** A server made by {@link createServer}. */
export interface SafeBrowsingServer {
  /** The fastify application, for `inject()` in tests or more routes. */
  app: FastifyInstance;
  /**
   * Starts listening; resolves to the base URL, e.g. http://127.0.0.1:8080.
   *
   * @throws {@link ListenError} when the address is taken, not this machine's, or not allowed.
   */
  listen(): Promise<string>;
  /** Stops listening and waits for requests under way. */
  close(): Promise<void>;
}

/**
 * The server `sbkit serve` runs: the v5 and v4 APIs (docs/api.md), the lookup and status pages, `/metrics`
 * and the operator endpoints, over `options.catalog` (from {@link demoCatalog}, {@link FeedLists} or an
 * {@link UpstreamMirror}). Not yet listening.
 */
export function createServer(options: ServerOptions): SafeBrowsingServer {
  const app = createApp(options);
  return {
    app,
    listen: async () => {
      const host = options.host ?? '127.0.0.1';
      const port = options.port ?? 8080;
      try {
        await app.listen({ host, port });
      } catch (error) {
        throw new ListenError(host, port, error);
      }
      const address = app.server.address();
      if (address === null || typeof address === 'string') return String(address);
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${shown}:${address.port}`;
    },
    close: () => app.close(),
  };
}
