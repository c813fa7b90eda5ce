// S11: an operator's script, or two operators at once, send edits of a list's entries concurrently while
// the list is near its cap of MAX_EDITS_PER_LIST edits. The cap was checked before the write, each edit
// against what the list held before any of them wrote: five edits of 8,000 entries on 90,001 all passed,
// keeping 130,001. Real servers on loopback, with the edits in memory, in a data folder and in Redis.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_ENTRIES_PER_EDIT } from '../../src/server/operator/admin-entries.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { MAX_EDITS_PER_LIST } from '../../src/server/feeds/entry-edits.ts';
import { type Service, startService } from '../../src/server/service.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from '../server/redis-fixture.ts';

const TOKEN = '3f9a1c7e5b2d8064a1e9c3b7d5f20846';
const NEAR = MAX_EDITS_PER_LIST - 9_999;
const EACH = 8_000;
const CONCURRENT = 5;

let dir: string;
const closing: Service[] = [];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-edit-cap-'));
});
after(async () => {
  for (const service of closing.splice(0)) await service.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(keeping: { dataDir?: string; redis?: { url: string; keyPrefix: string } }): Promise<Service> {
  const file = join(dir, 'sbkit.json');
  const raw = { adminToken: TOKEN, lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: [] }] }] };
  await writeFile(file, JSON.stringify(raw));
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config: parseServerConfig(raw, dir), dataDir: keeping.dataDir },
    redis: keeping.redis,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: () => {},
  });
  closing.push(service);
  return service;
}

async function add(service: Service, entries: string[]): Promise<{ status: number; inAll: number; message: string }> {
  const response = await fetch(`${service.url}/admin/lists/se-4b/entries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ add: entries }),
  });
  const json = (await response.json()) as { inAll?: { added: number; removed: number }; error?: { message: string } };
  return { status: response.status, inAll: (json.inAll?.added ?? 0) + (json.inAll?.removed ?? 0), message: json.error?.message ?? '' };
}

const entries = (from: number, count: number) => Array.from({ length: count }, (_, i) => `e${from + i}.example/`);

/** Fills the list up to NEAR edits, then sends CONCURRENT edits of EACH new entries at once. */
async function raceAtTheCap(service: Service): Promise<void> {
  for (let at = 0; at < NEAR; at += MAX_ENTRIES_PER_EDIT) {
    const filled = await add(service, entries(at, Math.min(MAX_ENTRIES_PER_EDIT, NEAR - at)));
    assert.equal(filled.status, 200, filled.message);
  }
  const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => add(service, entries(NEAR + i * EACH, EACH))));
  const passed = answers.filter((answer) => answer.status === 200);
  const refused = answers.filter((answer) => answer.status === 400);
  // Before: all five passed and the list kept 130,001 edits. After: one fits, the others are refused.
  assert.equal(passed.length, 1, `passed: ${passed.length}, kept: ${Math.max(...answers.map((a) => a.inAll))}`);
  assert.equal(refused.length, CONCURRENT - 1);
  for (const answer of refused) assert.match(answer.message, new RegExp(`would hold more than ${MAX_EDITS_PER_LIST} edits`));
  const kept = await add(service, ['e0.example/']);
  assert.equal(kept.inAll, NEAR + EACH);
  assert.ok(kept.inAll <= MAX_EDITS_PER_LIST);
}

describe('S11: concurrent edits near the cap of a list', { timeout: 120_000 }, () => {
  it('in a data folder (--data): one edit fits, the others are refused', async () => {
    await raceAtTheCap(await serve({ dataDir: join(dir, 'data') }));
  });

  it('in memory: one edit fits, the others are refused', async () => {
    await raceAtTheCap(await serve({}));
  });

  it('in Redis: one edit fits, the others are refused', async () => {
    await ensureRedis();
    const keyPrefix = uniqueKeyPrefix();
    try {
      await raceAtTheCap(await serve({ redis: { url: REDIS_URL, keyPrefix } }));
    } finally {
      for (const service of closing.splice(0)) await service.close();
      await deleteKeys(keyPrefix);
    }
  });
});
