// The transport of the client's protocol on Node, loaded at the first request: a program that makes a
// client, or checks URLs its cache and lists answer, loads no protobuf or HPKE code.

import type { ObliviousHttpOptions } from './oblivious-http.ts';
import type { ServerSettings, Transport } from './transport.ts';

/**
 * A transport of `protocol` once its code is loaded: v4 fetches `lists` (all of SB-11's when empty); v5
 * searches through an Oblivious HTTP relay when `ohttp` is given (SB-2).
 */
export async function connect(
  protocol: 'v5' | 'v4',
  settings: ServerSettings,
  lists: readonly string[],
  ohttp: ObliviousHttpOptions | undefined,
): Promise<Transport> {
  if (protocol === 'v4') {
    const { V4Transport } = await import('./transport-v4.ts');
    return new V4Transport(settings, lists);
  }
  const [{ V5Transport }, { protobufV5Rpcs }, { sendRequest }] = await Promise.all([
    import('./transport-v5.ts'),
    import('./v5-protobuf-rpcs.ts'),
    import('./http.ts'),
  ]);
  if (ohttp === undefined) return new V5Transport(settings, protobufV5Rpcs(settings, sendRequest));
  const [{ ObliviousHttp }, { readFile }] = await Promise.all([import('./oblivious-http.ts'), import('node:fs/promises')]);
  const oblivious = new ObliviousHttp(ohttp, sendRequest, readFile);
  return new V5Transport(
    settings,
    protobufV5Rpcs(settings, sendRequest, (request, http) => oblivious.send(request, http)),
  );
}
