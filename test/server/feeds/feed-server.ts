// A feed server on loopback for the tests of polite URL feeds: each path answers as its handler says,
// and every request is recorded (path and the headers that matter), so that tests count them.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface RecordedRequest {
  path: string;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  acceptEncoding: string | undefined;
}

export class FeedServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, Handler>();
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(): Promise<FeedServer> {
    let feeds: FeedServer | undefined;
    const server = createServer((request, response) => feeds!.answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    feeds = new FeedServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return feeds;
  }

  /** Sets (or replaces) how `path` answers. */
  route(path: string, handler: Handler): void {
    this.routes.set(path, handler);
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** Requests of `path` so far. */
  count(path: string): number {
    return this.requests.filter((request) => request.path === path).length;
  }

  /** The last request of `path`. */
  last(path: string): RecordedRequest | undefined {
    return this.requests.filter((request) => request.path === path).at(-1);
  }

  async close(): Promise<void> {
    for (const response of this.open) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0]!;
    this.requests.push({
      path,
      ifNoneMatch: request.headers['if-none-match'],
      ifModifiedSince: request.headers['if-modified-since'],
      acceptEncoding: request.headers['accept-encoding'],
    });
    this.open.add(response);
    response.on('close', () => this.open.delete(response));
    const handler = this.routes.get(path);
    if (handler === undefined) response.writeHead(404).end();
    else handler(request, response);
  }
}

/**
 * A feed as a well-behaved server keeps it: `text` with a strong ETag and a Last-Modified date, 304
 * when the request's If-None-Match names the current ETag. `version` changes the ETag.
 */
export function conditionalFeed(feed: { text: string; version: number }): Handler {
  return (request, response) => {
    const etag = `"v${feed.version}"`;
    const headers = { etag, 'last-modified': new Date(Date.UTC(2026, 0, 1 + feed.version)).toUTCString() };
    if (request.headers['if-none-match'] === etag) response.writeHead(304, headers).end();
    else response.writeHead(200, { ...headers, 'content-type': 'text/plain' }).end(feed.text);
  };
}
