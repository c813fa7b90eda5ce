import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWireResponse } from '../../src/wire/rest/server-response.ts';
import { decodeWireRequest, type DecodedWireRequest } from '../../src/wire/rest/server-request.ts';
import type { RpcId, RpcResponse } from '../../src/wire/rest/routes.ts';
import { renderWireError, WireError } from '../../src/wire/wire-error.ts';
import { create } from '@bufbuild/protobuf';
import { ListHashListsResponseSchema } from '../../src/proto/v5.ts';
import { ListThreatListsResponseSchema } from '../../src/proto/v4.ts';
import { KNOWN_LISTS } from '../../src/lists/known-lists.ts';
import { V4_LISTS } from '../../src/lists/v4-lists.ts';

/** How the scripted server answers one request: a message, a status (with headers, e.g. Retry-After), or silence. */
export type Answer =
  | { [R in RpcId]: { rpc: R; message: RpcResponse<R> } }[RpcId]
  | { status: number; body?: string; headers?: Record<string, string> }
  | { hang: true };

export interface FakeServer {
  url: string;
  /** Every request that reached the server, decoded, with its User-Agent. */
  requests: (DecodedWireRequest & { userAgent: string | undefined })[];
  /** Exceptions the script threw (failed assertions about requests); tests check it stays empty. */
  scriptErrors: unknown[];
  close(): Promise<void>;
}

/** Which lists the server says it publishes (`hashLists`, v4 `threatLists`), or 'scripted': the script answers. */
export interface FakeServerOptions {
  publishes?: readonly string[] | 'scripted';
}

/** The listing of `names` (v4: the triples of those that have one), as `rpc` answers it. */
export function listingAnswer(rpc: 'ListHashLists' | 'ListThreatLists', names: readonly string[]): Answer {
  if (rpc === 'ListHashLists') return { rpc, message: create(ListHashListsResponseSchema, { hashLists: names.map((name) => ({ name })) }) };
  const triples = names.flatMap((name) => (Object.hasOwn(V4_LISTS, name) ? [V4_LISTS[name as keyof typeof V4_LISTS]] : []));
  return { rpc, message: create(ListThreatListsResponseSchema, { threatLists: triples }) };
}

/**
 * A small Safe Browsing server for client tests: real HTTP on loopback, requests decoded by the wire
 * layer, answers from a script (a 200 with a message, any other status, or no answer at all). Unless
 * `publishes` is 'scripted', the listing of lists is answered without the script: every list sbkit
 * knows by default.
 */
export async function startFakeServer(
  script: (call: DecodedWireRequest) => Answer | Promise<Answer>,
  options: FakeServerOptions = {},
): Promise<FakeServer> {
  const publishes = options.publishes ?? KNOWN_LISTS.map((list) => list.name);
  const requests: FakeServer['requests'] = [];
  const scriptErrors: unknown[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        let call: DecodedWireRequest;
        try {
          call = decodeWireRequest({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) });
        } catch (err) {
          const rendered = renderWireError(err instanceof WireError ? err : new WireError('INTERNAL', String(err)));
          res.writeHead(rendered.httpStatus, rendered.headers).end(rendered.body);
          return;
        }
        requests.push({ ...call, userAgent: req.headers['user-agent'] });
        let answer: Answer;
        try {
          answer =
            publishes !== 'scripted' && (call.rpc === 'ListHashLists' || call.rpc === 'ListThreatLists')
              ? listingAnswer(call.rpc, publishes)
              : await script(call);
        } catch (err) {
          // A failed assertion inside a script: recorded, and answered so that nothing hangs.
          scriptErrors.push(err);
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`script failed: ${String(err)}`);
          return;
        }
        if ('hang' in answer) return;
        if ('status' in answer) {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? '');
          return;
        }
        const payload = encodeWireResponse(answer.rpc, answer.message as never, call.responseEncoding);
        res.writeHead(200, { 'content-type': payload.contentType }).end(payload.body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    scriptErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
