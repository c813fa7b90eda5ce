// An HTTP forwarder on loopback that records every request before passing it on: what a proxy under
// test asked its upstream, seen from between them.

import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingForwarder {
  /** Where to send requests meant for the target. */
  url: string;
  /** Every request forwarded so far, as `METHOD path?query`. */
  seen: string[];
  close(): Promise<void>;
}

/** A forwarder to `target` on a free loopback port. */
export async function recordingForwarder(target: URL): Promise<RecordingForwarder> {
  const seen: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
