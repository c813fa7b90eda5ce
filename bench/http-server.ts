// Child process of bench/http.ts: one server per process, as docs/architecture.md asks, so that no
// server's heap or event loop weighs on another's figures. Its role is the first argument:
//   sbkit    the built package's server with the demo lists
//   guarded  the same behind load control, its limits set out of reach: what the gate costs per request
//   bare     a bare fastify app whose routes send bodies of the sizes given (the next two arguments)
// It sends its routes to the parent and stays up until the parent disconnects.
import { fromBinary } from '@bufbuild/protobuf';
import Fastify from 'fastify';
import { BatchGetHashListsResponseSchema } from '../src/proto/v5.ts';
// The built package, as users run it (`npm run bench` builds first).
import { createServer, demoCatalog, LoadControl } from '../dist/server/index.js';
import { expressionHashString } from '../src/url/hash.ts';

type Role = 'sbkit' | 'guarded' | 'bare';
const role = process.argv[2] as Role;
let close: () => Promise<unknown>;

if (role === 'bare') {
  const [searchBytes, batchBytes, variedBytes] = process.argv.slice(3).map(Number) as [number, number, number];
  const bare = Fastify({ logger: false });
  const searchBody = Buffer.alloc(searchBytes);
  const batchBody = Buffer.alloc(batchBytes);
  const variedBody = Buffer.alloc(variedBytes);
  bare.get('/bare-search', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(searchBody));
  bare.get('/bare-batch', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(batchBody));
  bare.get('/bare-varied', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(variedBody));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const address = bare.server.address();
  const url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
  close = () => bare.close();
  process.send?.({ search: `${url}/bare-search`, batch: `${url}/bare-batch`, varied: { url, paths: ['/bare-varied'] } });
} else {
  // The gate's rate limit set out of reach: every request is decided and admitted.
  const loadControl =
    role === 'guarded' ? await LoadControl.create({ settings: { burstMax: 1_000_000_000, loadMax: 1_000_000 } }) : undefined;
  const server = createServer({ catalog: demoCatalog(), port: 0, loadControl });
  const url = await server.listen();
  close = () => server.close();
  // Firefox's search for one prefix, and a batch of five lists at their current versions (the common
  // case of a periodic update).
  const prefix = encodeURIComponent(
    Buffer.from(expressionHashString('testsafebrowsing.appspot.com/s/phishing.html').slice(0, 4), 'latin1').toString('base64'),
  );
  const searchPath = `/v5/hashes:search?key=K&hashPrefixes=${prefix}`;
  const names = ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b'].map((n) => `names=${n}`).join('&');
  const first = await fetch(`${url}/v5/hashLists:batchGet?${names}`);
  const lists = fromBinary(BatchGetHashListsResponseSchema, new Uint8Array(await first.arrayBuffer())).hashLists;
  const versions = lists.map((l) => `version=${encodeURIComponent(Buffer.from(l.version).toString('base64'))}`).join('&');
  const batchPath = `/v5/hashLists:batchGet?key=K&${names}&${versions}`;
  // Searches as real-time clients make them: a different prefix each time, nearly all in no list, so
  // that no answer kept for a prefix helps (10,000 of them, more than the server keeps).
  let seed = 12345;
  const variedPaths = Array.from({ length: 10_000 }, () => {
    const prefix = Buffer.alloc(4);
    for (let i = 0; i < 4; i++) prefix[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
    return `/v5/hashes:search?key=K&hashPrefixes=${encodeURIComponent(prefix.toString('base64'))}`;
  });
  const bytesOf = async (path: string) => (await (await fetch(`${url}${path}`)).arrayBuffer()).byteLength;
  process.send?.({
    search: `${url}${searchPath}`,
    batch: `${url}${batchPath}`,
    varied: { url, paths: variedPaths },
    searchBytes: await bytesOf(searchPath),
    batchBytes: await bytesOf(batchPath),
    variedBytes: await bytesOf(variedPaths[0]!),
  });
}
// The process's CPU time so far, asked for around each measurement: what a request costs the server,
// which the machine's other tenants do not change as they change the rate.
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
});
process.on('disconnect', () => {
  void close().then(() => process.exit(0));
});
