// `HOST:PORT` as `--admin-listen` and the configuration's `adminListen` give it: `127.0.0.1:9090`,
// `[::1]:9090`, `localhost:9090`.

import { isIP } from 'node:net';

/** An address and port to listen on. */
export interface ListenAddress {
  host: string;
  /** 0: any free port. */
  port: number;
}

/** The address of `HOST:PORT` (IPv6 in brackets), or what is wrong with the text. */
export function parseListenAddress(text: string): ListenAddress | { problem: string } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (match === null || host === undefined || port > 65535 || (match[1] !== undefined && isIP(match[1]) !== 6)) {
    return { problem: `must be HOST:PORT, e.g. 127.0.0.1:9090 or [::1]:9090, not ${JSON.stringify(text.slice(0, 100))}` };
  }
  return { host, port };
}
