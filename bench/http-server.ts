// Child process of bench/http.ts: an sbkit server (the built package) with the demo lists, the same behind load control,
// and beside them a bare fastify app whose routes send bodies of the sizes of the sbkit answers
// measured, all under the same load generator in one run.
import { fromBinary } from '@bufbuild/protobuf';
import Fastify from 'fastify';
import { BatchGetHashListsResponseSchema } from '../src/proto/v5.ts';
// The built package, as users run it (`npm run bench` builds first).
import { createServer, demoCatalog, LoadControl } from '../dist/server/index.js';
import { expressionHashString } from '../src/url/hash.ts';

const server = createServer({ catalog: demoCatalog(), port: 0 });
const sbkitUrl = await server.listen();
// The same behind load control, its rate limit set out of reach: what the gate costs per request.
const loadControl = await LoadControl.create({ settings: { burstMax: 1_000_000_000, loadMax: 1_000_000 } });
const guarded = createServer({ catalog: demoCatalog(), port: 0, loadControl });
const guardedUrl = await guarded.listen();

// Firefox's search for one prefix, and a batch of five lists at their current versions (the common
// case of a periodic update), as paths that both servers answer alike.
const prefix = encodeURIComponent(
  Buffer.from(expressionHashString('testsafebrowsing.appspot.com/s/phishing.html').slice(0, 4), 'latin1').toString('base64'),
);
const searchPath = `/v5/hashes:search?key=K&hashPrefixes=${prefix}`;
const names = ['se-4b', 'mw-4b', 'uws-4b', 'uwsa-4b', 'pha-4b'].map((n) => `names=${n}`).join('&');
const first = await fetch(`${sbkitUrl}/v5/hashLists:batchGet?${names}`);
const lists = fromBinary(BatchGetHashListsResponseSchema, new Uint8Array(await first.arrayBuffer())).hashLists;
const versions = lists.map((l) => `version=${encodeURIComponent(Buffer.from(l.version).toString('base64'))}`).join('&');
const batchPath = `/v5/hashLists:batchGet?key=K&${names}&${versions}`;
const bytesOf = async (path: string) => (await (await fetch(`${sbkitUrl}${path}`)).arrayBuffer()).byteLength;
const searchBytes = await bytesOf(searchPath);
const batchBytes = await bytesOf(batchPath);

const bare = Fastify({ logger: false });
const searchBody = Buffer.alloc(searchBytes);
const batchBody = Buffer.alloc(batchBytes);
bare.get('/bare-search', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(searchBody));
bare.get('/bare-batch', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(batchBody));
await bare.listen({ host: '127.0.0.1', port: 0 });
const address = bare.server.address();
const bareUrl = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
process.send?.({
  routes: {
    bareSearch: `${bareUrl}/bare-search`,
    search: `${sbkitUrl}${searchPath}`,
    guardedSearch: `${guardedUrl}${searchPath}`,
    bareBatch: `${bareUrl}/bare-batch`,
    batch: `${sbkitUrl}${batchPath}`,
    guardedBatch: `${guardedUrl}${batchPath}`,
  },
  searchBytes,
  batchBytes,
});
process.on('disconnect', () => {
  void Promise.all([server.close(), guarded.close(), bare.close()]).then(() => process.exit(0));
});
