import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { createServer, type SafeBrowsingServer } from '../../../src/server/http/server.ts';
import { demoCatalog } from '../fixture.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
/** flood.ts in the form this test runs in: compiled by scripts/test.mjs (.js), or from source under tsx. */
const FLOOD = fileURLToPath(import.meta.resolve('./flood.ts'));
const LOADER = FLOOD.endsWith('.ts') ? ['--import', 'tsx'] : [];
let server: SafeBrowsingServer;
let url: string;
let loadControl: LoadControl;

// Retained memory is what "bounded" is about; measuring heapUsed without a collection measures garbage, which
// depends on when V8 last collected. The test command does not pass --expose-gc, so the function is fetched here.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function retainedHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

before(async () => {
  loadControl = await LoadControl.create({ settings: { loadMax: 4, sleepingMax: 8, delayMs: 50 } });
  server = createServer({ catalog: demoCatalog(), loadControl, port: 0 });
  url = await server.listen();
});
after(async () => {
  await server.close();
  await loadControl.close();
});

describe('overload on loopback', () => {
  it(
    'keeps serving a browser while a flood of API clients is refused with 503 and Retry-After, in bounded memory',
    { timeout: 60_000 },
    async (t) => {
      const heapBefore = retainedHeap();
      const search = `${url}/v5/hashes:search?hashPrefixes=WwuJdQ`;
      // 200 distinct API clients whose budgets (LC-1: 10 requests in 15 s each) admit 2 000 requests: 4 s of
      // flood, and on until at least 6 000 were sent, so that most of it is over budget on any machine.
      const flood = promisify(execFile)(process.execPath, [...LOADER, FLOOD, search, '4', '6000', '20000', '200']);
      const browser: number[] = [];
      // A person browsing: a lookup every 400 ms, eight in all, under the LC-1 limit.
      for (let i = 0; i < 8; i++) {
        await new Promise((resolve) => setTimeout(resolve, 400));
        browser.push((await fetch(search, { headers: { 'user-agent': FIREFOX } })).status);
      }
      const report = JSON.parse((await flood).stdout) as { sent: number; statuses: Record<string, number>; missingRetryAfter: number };
      t.diagnostic(`flood: ${JSON.stringify(report)}; browser: ${browser.join(' ')}`);
      assert.deepEqual(browser, Array(8).fill(200), 'the browser was served every time');
      assert.ok((report.statuses['503'] ?? 0) > report.sent / 2, `most of the flood was refused: ${JSON.stringify(report)}`);
      assert.ok((report.statuses['200'] ?? 0) > 0, 'API clients within their budget were served');
      assert.equal(report.statuses.error, undefined, 'no connection failed');
      assert.equal(report.missingRetryAfter, 0);
      assert.equal((await fetch(`${url}/healthz`)).status, 200, 'the server is still up');
      assert.equal(loadControl.gate.load, 0, 'every admitted request was counted out again');
      const heapGrowth = retainedHeap() - heapBefore;
      t.diagnostic(`retained heap growth: ${(heapGrowth / 1024 / 1024).toFixed(1)} MB`);
      assert.ok(heapGrowth < 16 * 1024 * 1024, `the retained heap grew by ${Math.round(heapGrowth / 1024 / 1024)} MB`);
    },
  );
});
