import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { SafeBrowsingClient as BrowserClient } from '../../../src/browser.ts';
import { nodeRuntime } from '../../../src/client/runtime/node-runtime.ts';
import { SafeBrowsingClient } from '../../../src/client/safe-browsing-client.ts';
import { prefixesToBytes } from '../../../src/codec/prefixes.ts';
import { BatchGetHashListsResponseSchema } from '../../../src/proto/v5.ts';
import { nodeSha256 } from '../../../src/url/hash.ts';
import { sha256Portable } from '../../../src/url/sha256.ts';
import { startFakeServer, type FakeServer } from '../fake-server.ts';
import { prefixList } from '../lists-fixture.ts';

// The Node entry hands the runtime-neutral client node:crypto's SHA-256 for list checksums (SB-9), on
// every Node the package supports, not only where `process.getBuiltinModule` exists: the checksum of a
// list of millions costs some twenty times more in JavaScript.

/** node:crypto's one-shot `hash`, wrapped so that the bytes it is given are seen; ESM importers see the wrapper too. */
function watchNodeHash(): { hashed: Uint8Array[]; restore(): void } {
  const original = crypto.hash;
  const hashed: Uint8Array[] = [];
  crypto.hash = ((algorithm: string, data: crypto.BinaryLike, encoding?: 'buffer') => {
    if (data instanceof Uint8Array) hashed.push(Uint8Array.from(data));
    return original(algorithm, data, encoding as 'buffer');
  }) as typeof crypto.hash;
  syncBuiltinESMExports();
  return {
    hashed,
    restore() {
      crypto.hash = original;
      syncBuiltinESMExports();
    },
  };
}

const PREFIXES = Uint32Array.of(3, 0x10203040, 0xfffffff0);
const LIST_BYTES = prefixesToBytes(PREFIXES);
// Made before any hash is watched: the server's own checksum is not the client's.
const ANSWER = create(BatchGetHashListsResponseSchema, { hashLists: [prefixList('mw-4b', 'v1', PREFIXES, { minimumWaitMs: 60_000 })] });

let server: FakeServer;
let dataDir: string;
before(async () => {
  server = await startFakeServer(() => ({ rpc: 'BatchGetHashLists', message: ANSWER }));
});
after(async () => {
  await server.close();
});
afterEach(async () => {
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('nodeRuntime: list checksums by node:crypto', () => {
  it('is node:crypto’s SHA-256, byte for byte the JavaScript one of other runtimes', () => {
    assert.equal(nodeRuntime.sha256, nodeSha256);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const native = nodeSha256(bytes);
        assert.deepEqual(Buffer.from(native), crypto.createHash('sha256').update(bytes).digest());
        assert.deepEqual(Buffer.from(native), Buffer.from(sha256Portable(bytes)));
      }),
    );
  });

  it('a client of the Node entry checks an update, and the list it stored, with node:crypto', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sbkit-node-runtime-'));
    const watch = watchNodeHash();
    try {
      const client = new SafeBrowsingClient({ server: server.url, mode: 'local', lists: ['mw-4b'], dataDir });
      const summary = await client.update();
      assert.deepEqual([summary.updated, summary.error], [['mw-4b'], undefined]);
      await client.close();
      assert.ok(
        watch.hashed.some((bytes) => sameBytes(bytes, LIST_BYTES)),
        'the update’s checksum was node:crypto’s',
      );
      watch.hashed.length = 0;
      const reopened = new SafeBrowsingClient({ server: server.url, mode: 'local', lists: ['mw-4b'], dataDir, readOnly: true });
      await reopened.open();
      assert.deepEqual(
        reopened.listInfo().map((list) => [list.name, list.entries]),
        [['mw-4b', 3]],
      );
      await reopened.close();
      assert.ok(
        watch.hashed.some((bytes) => sameBytes(bytes, LIST_BYTES)),
        'the stored list was checked by node:crypto',
      );
    } finally {
      watch.restore();
    }
  });

  it('the browser entry, run on Node, checks the same update in JavaScript: the watch tells the two apart', async () => {
    const watch = watchNodeHash();
    try {
      const client = new BrowserClient({ server: server.url, mode: 'local', lists: ['mw-4b'], storage: 'memory' });
      assert.deepEqual((await client.update()).updated, ['mw-4b']);
      await client.close();
      assert.equal(watch.hashed.filter((bytes) => sameBytes(bytes, LIST_BYTES)).length, 0);
    } finally {
      watch.restore();
    }
  });
});
