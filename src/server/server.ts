import type { FastifyInstance } from 'fastify';
import { adminTokenProblem } from './admin-token.ts';
import { type AppOptions, createApp, createOperatorApp, type PauseSwitch } from './app.ts';
import { ConfigError } from './feeds/config-error.ts';
import type { ListenAddress } from './listen-address.ts';
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
  /** Serve `/admin/*` and `/metrics` only on this address (e.g. 127.0.0.1:9090); they are 404 on the public one. */
  adminListen?: ListenAddress;
}

/** A server made by {@link createServer}. */
export interface SafeBrowsingServer {
  /** The fastify application, for `inject()` in tests or more routes. */
  app: FastifyInstance;
  /** The operator's application (`/admin/*`, `/metrics`, `/healthz`) when `adminListen` is set. */
  operatorApp: FastifyInstance | undefined;
  /** The operator listener's base URL, once listening with `adminListen`. */
  readonly adminUrl: string | undefined;
  /**
   * Starts listening; resolves to the base URL, e.g. http://127.0.0.1:8080.
   *
   * @throws {@link ListenError} when the address is taken, not this machine's, or not allowed.
   */
  listen(): Promise<string>;
  /** Stops listening and waits for requests under way. */
  close(): Promise<void>;
}

async function listenOn(app: FastifyInstance, host: string, port: number): Promise<string> {
  try {
    await app.listen({ host, port });
  } catch (error) {
    throw new ListenError(host, port, error);
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') return String(address);
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}

/**
 * The server `sbkit serve` runs: the v5 and v4 APIs (docs/api.md), the lookup and status pages, `/metrics`
 * and the operator endpoints, over `options.catalog` (from {@link demoCatalog}, {@link FeedLists} or an
 * {@link UpstreamMirror}). Not yet listening.
 *
 * @throws {@link ConfigError} for an `adminToken` too weak to guard the operator endpoints (admin-token.ts).
 */
export function createServer(options: ServerOptions): SafeBrowsingServer {
  const problem = options.adminToken === undefined ? undefined : adminTokenProblem(options.adminToken);
  if (problem !== undefined) throw new ConfigError('adminToken', problem);
  const { adminListen } = options;
  const pause: PauseSwitch = { paused: false };
  const app = createApp(options, { pause, apart: adminListen !== undefined });
  const operatorApp = adminListen === undefined ? undefined : createOperatorApp(options, pause);
  let adminUrl: string | undefined;
  return {
    app,
    operatorApp,
    get adminUrl() {
      return adminUrl;
    },
    listen: async () => {
      const url = await listenOn(app, options.host ?? '127.0.0.1', options.port ?? 8080);
      if (operatorApp !== undefined && adminListen !== undefined) {
        try {
          adminUrl = await listenOn(operatorApp, adminListen.host, adminListen.port);
        } catch (error) {
          await app.close();
          throw error;
        }
      }
      return url;
    },
    close: async () => {
      await operatorApp?.close();
      await app.close();
    },
  };
}
