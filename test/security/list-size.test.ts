// A list answer of 30 MB whose Rice header announces 60 million entries: decoded, it took 987 MiB of
// memory and a 240 MB file. The client now refuses it from the header, before anything is allocated.
// Alone in its file: the test reads the process's peak memory, which other tests would raise first.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { BatchGetHashListsResponseSchema } from '../../src/proto/v5.ts';
import { ListTooLargeError } from '../../src/client/client-errors.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { durationFromMs } from '../../src/wire/duration.ts';
import { encodeWireResponse } from '../../src/wire/rest/server-response.ts';

const ENTRIES = 60_000_000;
/** Rice parameter 3: an entry is a 0 bit (quotient 0) and 3 bits of remainder, 1 here: 0x22 holds two. */
const DATA_BYTES = ENTRIES / 2;

/**
 * SB-9's checksum of the prefixes 0, 1, … count − 1 (big-endian), a block at a time: with it the answer
 * is one a client that decodes it would apply and store in full.
 */
function checksumOfCount(count: number): Uint8Array {
  const hash = createHash('sha256');
  const block = Buffer.alloc(4 * 1_000_000);
  for (let start = 0; start < count; start += 1_000_000) {
    const n = Math.min(1_000_000, count - start);
    for (let i = 0; i < n; i++) block.writeUInt32BE(start + i, 4 * i);
    hash.update(block.subarray(0, 4 * n));
  }
  return hash.digest();
}

let server: Server;
let url: string;
let dataDir: string;

before(async () => {
  // Encoded once, before anything is measured: what the server holds is not the client's cost.
  const encodedData = new Uint8Array(DATA_BYTES).fill(0x22);
  const message = create(BatchGetHashListsResponseSchema, {
    hashLists: [
      {
        name: 'mw-4b',
        version: Buffer.from('v1'),
        compressedAdditions: {
          case: 'additionsFourBytes',
          value: { firstValue: 0, riceParameter: 3, entriesCount: ENTRIES - 1, encodedData },
        },
        sha256Checksum: checksumOfCount(ENTRIES),
        minimumWaitDuration: durationFromMs(1_800_000),
      },
    ],
  });
  const payload = encodeWireResponse('BatchGetHashLists', message, 'protobuf');
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': payload.contentType }).end(payload.body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dataDir = await mkdtemp(join(tmpdir(), 'sbkit-list-size-'));
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe('a list answer announcing 60 M entries in 30 MB', () => {
  it('is refused from its header with ListTooLargeError, the list kept as it was, at a fraction of the memory', async (t) => {
    const sb = new SafeBrowsingClient({ server: url, mode: 'local', lists: ['mw-4b'], dataDir });
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const startedAt = performance.now();
    const summary = await sb.update();
    const seconds = (performance.now() - startedAt) / 1000;
    const grewBy = process.resourceUsage().maxRSS * 1024 - peakBefore;
    const files = await readdir(dataDir);
    const largest = Math.max(0, ...(await Promise.all(files.map(async (f) => (await stat(join(dataDir, f))).size))));
    await sb.close();
    const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
    t.diagnostic(`peak memory +${mib(grewBy)} MiB, largest file ${mib(largest)} MiB, ${seconds.toFixed(2)} s`);

    const refusal = summary.failed[0]?.error;
    assert.ok(refusal instanceof ListTooLargeError, `expected ListTooLargeError, got ${String(refusal)}`);
    assert.equal(refusal.entries, ENTRIES);
    assert.equal(refusal.maxEntries, 16 * 1024 * 1024);
    assert.equal(summary.error, refusal, 'a failed update: the client backs off (RF-4)');
    assert.ok(summary.backoffUntil !== undefined);
    assert.equal(sb.listInfo()[0]!.entries, 0);
    // The decoded entries alone would take 240 MB (60 M × 4 bytes); the answer itself is read (30 MB,
    // a copy or two of it while it is decoded from protobuf) and nothing more.
    assert.ok(grewBy < 200 * 2 ** 20, `the peak memory grew by ${mib(grewBy)} MiB in ${seconds.toFixed(1)} s`);
    assert.ok(largest < 1_000_000, `a file of ${mib(largest)} MiB was written`);
  });
});
