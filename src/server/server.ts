import type { FastifyInstance } from 'fastify';
import { type AppOptions, createApp } from './app.ts';

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
   * @throws the listen error, e.g. `EADDRINUSE` when the port is taken.
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
      await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 8080 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') return String(address);
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${host}:${address.port}`;
    },
    close: () => app.close(),
  };
}
