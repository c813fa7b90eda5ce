import type { FastifyInstance } from 'fastify';
import { type AppOptions, createApp } from './app.ts';

export interface ServerOptions extends AppOptions {
  host?: string;
  port?: number;
}

export interface SafeBrowsingServer {
  app: FastifyInstance;
  /** Starts listening; resolves to the base URL, e.g. http://127.0.0.1:8080. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** DESIGN.md `createServer(options)`: the HTTP application, not yet listening. */
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
