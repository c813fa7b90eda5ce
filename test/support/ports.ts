// A port for a program the test starts and configures by port number (nginx, redis-server), which
// cannot be told to take port 0 and say which it took. The port is free when asked for, not reserved:
// another process may take it before the program binds, which on a test machine is rare enough.

import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listened on a moment ago. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
