// Child process of bench/http.ts: an sbkit server with the demo lists and, beside it, a bare fastify
// app with one route, and an sbkit server behind load control, all measured under the same load
// generator in one run.
import Fastify from 'fastify';
import { demoCatalog } from '../src/server/demo.ts';
import { LoadControl } from '../src/server/guard/load-control.ts';
import { createServer } from '../src/server/server.ts';

const server = createServer({ catalog: demoCatalog(), port: 0 });
const sbkitUrl = await server.listen();
// The same behind load control, its rate limit set out of reach: what the gate costs per request.
const loadControl = await LoadControl.create({ settings: { burstMax: 1_000_000_000, loadMax: 1_000_000 } });
const guarded = createServer({ catalog: demoCatalog(), port: 0, loadControl });
const guardedUrl = await guarded.listen();
const bare = Fastify({ logger: false });
bare.get('/bare', async (_request, reply) => reply.header('content-type', 'application/x-protobuf').send(Buffer.alloc(48)));
await bare.listen({ host: '127.0.0.1', port: 0 });
const address = bare.server.address();
const bareUrl = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}/bare` : '';
process.send?.({ sbkitUrl, bareUrl, guardedUrl });
process.on('disconnect', () => {
  void Promise.all([server.close(), guarded.close(), bare.close()]).then(() => process.exit(0));
});
