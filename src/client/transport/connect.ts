// The transport of the client's protocol on Node, loaded at the first request: a program that makes a
// client, or checks URLs its cache and lists answer, loads no HPKE code, and one speaking v5 in binary
// protobuf (the default) no protobuf runtime either.

import type { Clock } from '../../time/clock.ts';
import type { Protocol } from '../../wire/rest/routes.ts';
import type { ObliviousHttpOptions } from './oblivious-http.ts';
import type { Sender } from './rpc.ts';
import type { ServerSettings, Transport } from './transport.ts';
import type { JsonAnswers } from './v5-binary-rpcs.ts';
import type { V5Rpcs } from './transport-v5.ts';

/** JSON answers to binary requests, read by the generated code (wire/rest/client-response.ts), loaded with the first one. */
const JSON_ANSWERS: JsonAnswers = {
  async searchHashes(response) {
    const { decodeWireResponse } = await import('../../wire/rest/client-response.ts');
    return decodeWireResponse('SearchHashes', response, 'json');
  },
  async batchGetHashLists(response) {
    const { decodeWireResponse } = await import('../../wire/rest/client-response.ts');
    return decodeWireResponse('BatchGetHashLists', response, 'json');
  },
  async listHashLists(response) {
    const { decodeWireResponse } = await import('../../wire/rest/client-response.ts');
    const answer = decodeWireResponse('ListHashLists', response, 'json');
    return { names: answer.hashLists.map((list) => list.name), nextPageToken: answer.nextPageToken };
  },
};

/**
 * v5's RPCs in the encoding of `settings`: binary protobuf by the client's own reader (v5-binary-rpcs.ts),
 * which loads no protobuf runtime; JSON by the generated code.
 */
async function v5Rpcs(settings: ServerSettings, send: Sender, searchSender: Sender): Promise<V5Rpcs> {
  if (settings.encoding === 'protobuf') {
    const { binaryV5Rpcs } = await import('./v5-binary-rpcs.ts');
    return binaryV5Rpcs(settings, send, { searchSender, json: JSON_ANSWERS });
  }
  const { protobufV5Rpcs } = await import('./v5-protobuf-rpcs.ts');
  return protobufV5Rpcs(settings, send, searchSender);
}

/**
 * A transport of `protocol` once its code is loaded: v4 and Web Risk fetch `lists` (all they have when
 * empty); v5 searches through an Oblivious HTTP relay when `ohttp` is given (SB-2).
 */
export async function connect(
  protocol: Protocol,
  settings: ServerSettings,
  lists: readonly string[],
  ohttp: ObliviousHttpOptions | undefined,
  clock: Clock,
): Promise<Transport> {
  if (protocol === 'v4') {
    const { V4Transport } = await import('./transport-v4.ts');
    return new V4Transport(settings, lists);
  }
  if (protocol === 'webrisk') {
    const { WebRiskTransport } = await import('./transport-webrisk.ts');
    return new WebRiskTransport(settings, lists, clock);
  }
  const [{ V5Transport }, { sendRequest }] = await Promise.all([import('./transport-v5.ts'), import('./http.ts')]);
  if (ohttp === undefined) return new V5Transport(settings, await v5Rpcs(settings, sendRequest, sendRequest));
  const [{ ObliviousHttp }, { readFile }] = await Promise.all([import('./oblivious-http.ts'), import('node:fs/promises')]);
  const oblivious = new ObliviousHttp(ohttp, sendRequest, clock, readFile);
  return new V5Transport(settings, await v5Rpcs(settings, sendRequest, (request, http) => oblivious.send(request, http)));
}
