import type { FastifyInstance } from 'fastify';
import type { Http2SecureServer } from 'node:http2';
import { type AccessOptions, LiveAccess } from '../api/access.ts';
import { adminTokenProblem } from '../operator/admin-token.ts';
import { type AppOptions, createApp, createOperatorApp, type PauseSwitch } from './app.ts';
import { Submissions } from '../operator/submissions.ts';
import { ConnectionDrain, DEFAULT_SHUTDOWN_TIMEOUT_MS } from './connection-drain.ts';
import { ConfigError } from '../config/config-error.ts';
import type { ListenAddress } from './listen-address.ts';
import type { TlsCredentials } from './tls.ts';
import { type ErrorCode, errorCode, SbkitError } from '../../sbkit-error.ts';
import { loggerOf } from '../logger.ts';

/** The address cannot be listened on: taken, not this machine's, or not allowed. */
export class ListenError extends SbkitError {
  /** Always `"ListenError"`, as logs and stack traces show it. */
  override readonly name = 'ListenError';
  /** Always `SBKIT_LISTEN`. */
  override readonly code = errorCode('LISTEN');
  /** Every code of this class. */
  static readonly codes: readonly ErrorCode<'LISTEN'>[] = [errorCode('LISTEN')];

  constructor(host: string, port: number, cause: unknown) {
    const because = cause instanceof Error ? cause.message : String(cause);
    super(`cannot listen on ${host}:${port}: ${because}; ${listenRemedy((cause as NodeJS.ErrnoException | undefined)?.code)}`, { cause });
  }
}

/** What to do when an address cannot be listened on, by the system's error code. */
function listenRemedy(code: string | undefined): string {
  switch (code) {
    case 'EADDRINUSE':
      return 'another process listens there: stop it, or choose another port';
    case 'EADDRNOTAVAIL':
      return 'the address is not one of this machine: choose one it has, or 0.0.0.0 for all';
    case 'EACCES':
      return 'ports below 1024 need privileges: choose a port from 1024 (and forward to it), or grant CAP_NET_BIND_SERVICE';
    default:
      return 'choose another address or port';
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
  /** How long `close()` lets requests under way finish before it cuts their connections; 10 s by default. */
  shutdownTimeoutMs?: number;
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
   * Starts listening; resolves to the base URL, e.g. http://127.0.0.1:8080 (https://… with `tls`).
   *
   * @throws {@link ListenError} when the address is taken, not this machine's, or not allowed.
   */
  listen(): Promise<string>;
  /**
   * Applies what may change while serving, from the next request on: API keys, the answers' settings,
   * the admin token. Whether the operator endpoints exist at all is fixed when the server is made.
   *
   * @throws {@link ConfigError} for an `adminToken` too weak to guard the operator endpoints.
   */
  reconfigure(access: AccessOptions): void;
  /** Serves this certificate and key to connections made from now on; open ones keep theirs. Only with `tls`. */
  setCertificate(tls: TlsCredentials): void;
  /**
   * Stops gracefully: stops listening, lets requests under way finish (at most `shutdownTimeoutMs`,
   * then cuts what is left, and tells `log` how many) and closes every connection.
   */
  close(): Promise<void>;
}

async function listenOn(app: FastifyInstance, host: string, port: number, scheme = 'http'): Promise<string> {
  try {
    await app.listen({ host, port });
  } catch (error) {
    throw new ListenError(host, port, error);
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') return String(address);
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${shown}:${address.port}`;
}

/**
 * The server `sbkit serve` runs: the v5 and v4 APIs (docs/api.md), the lookup and status pages, `/metrics`
 * and the operator endpoints, over `options.catalog` (from {@link demoCatalog}, {@link FeedLists} or an
 * {@link UpstreamMirror}). Not yet listening.
 *
 * @throws {@link ConfigError} for an `adminToken` too weak to guard the operator endpoints (admin-token.ts).
 */
export function createServer(given: ServerOptions): SafeBrowsingServer {
  checkAdminToken(given.adminToken);
  // One keeper of Web Risk submissions for both applications: the public one records, the operator's shows them.
  const options = { ...given, submissions: given.submissions ?? new Submissions() };
  const { adminListen } = options;
  const pause: PauseSwitch = { paused: false };
  const access = new LiveAccess(options);
  const app = createApp(options, { pause, apart: adminListen !== undefined }, access);
  const operatorApp = adminListen === undefined ? undefined : createOperatorApp(options, pause, access);
  const drains = [app, operatorApp].filter((part) => part !== undefined).map((part) => new ConnectionDrain(part.server, options.clock));
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  let adminUrl: string | undefined;
  return {
    app,
    operatorApp,
    get adminUrl() {
      return adminUrl;
    },
    listen: async () => {
      const url = await listenOn(app, options.host ?? '127.0.0.1', options.port ?? 8080, options.tls === undefined ? 'http' : 'https');
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
    reconfigure: (next) => {
      checkAdminToken(next.adminToken);
      access.update(next);
    },
    setCertificate: (tls) => {
      if (options.tls === undefined) throw new Error('setCertificate needs a server made with tls');
      (app.server as unknown as Http2SecureServer).setSecureContext({ cert: tls.cert, key: tls.key });
    },
    close: async () => {
      // Draining runs beside fastify's close, which stops listening and answers 503 to requests that
      // arrive on open connections meanwhile; it resolves once the drain has closed the last connection.
      const outcomes = drains.map((drain) => drain.drain(shutdownTimeoutMs));
      await operatorApp?.close();
      await app.close();
      const forced = (await Promise.all(outcomes)).reduce((sum, outcome) => sum + outcome.forced, 0);
      if (forced > 0) loggerOf(options.log).warn(`${forced} connections still busy after ${shutdownTimeoutMs / 1000} s were cut`);
    },
  };
}

/** @throws {@link ConfigError} for a token too weak to guard the operator endpoints (admin-token.ts). */
function checkAdminToken(token: string | undefined): void {
  const problem = token === undefined ? undefined : adminTokenProblem(token);
  if (problem !== undefined) throw new ConfigError('adminToken', problem);
}
