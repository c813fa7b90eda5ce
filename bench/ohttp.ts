// What Oblivious HTTP adds to a search (SB-2): one search of one prefix by sbkit's client (its searcher,
// as a caching proxy uses it), directly and through a relay and a gateway, all on loopback in this process.
import type { AddressInfo } from 'node:net';
import { clientUpstream, type Upstream } from '../src/server/proxy/upstream.ts';
import { demoCatalog } from '../src/server/demo.ts';
import { KeyRing } from '../src/server/ohttp/key-ring.ts';
import { createRelayApp } from '../src/server/ohttp/relay.ts';
import { createServer } from '../src/server/http/server.ts';
import type { BenchCase } from './case.ts';

export interface OhttpBench {
  cases: BenchCase[];
  cleanup(): Promise<void>;
}

export async function ohttpBenchmarks(): Promise<OhttpBench> {
  const gateway = createServer({ catalog: demoCatalog(), ohttpKeys: await KeyRing.create(), port: 0 });
  const gatewayUrl = await gateway.listen();
  const relay = createRelayApp({ gateway: `${gatewayUrl}/ohttp-gateway` });
  await relay.listen({ host: '127.0.0.1', port: 0 });
  const relayUrl = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}/ohttp-relay`;
  const direct = clientUpstream({ server: gatewayUrl, mode: 'nostorage' });
  const oblivious = clientUpstream({
    server: gatewayUrl,
    mode: 'nostorage',
    ohttp: { relay: relayUrl, keys: `${gatewayUrl}/ohttp-keys` },
  });
  // A new prefix for every search, so that no answer comes from the client's cache.
  let prefix = 1;
  const search = (client: Upstream) => async () => {
    await client.searchPrefixes([prefix++]);
  };
  return {
    cases: [
      { name: 'hashes:search of one prefix by our client, directly (loopback)', unit: 'searches', unitsPerOp: 1, fn: search(direct) },
      {
        name: 'the same through an OHTTP relay and gateway (loopback; encapsulation, two hops)',
        unit: 'searches',
        unitsPerOp: 1,
        fn: search(oblivious),
      },
    ],
    cleanup: async () => {
      await relay.close();
      await gateway.close();
    },
  };
}
