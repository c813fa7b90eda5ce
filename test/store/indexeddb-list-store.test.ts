// IndexedDbListStore in the browser it is for: the store bundled with esbuild into a page on loopback
// (a secure context), run in Debian's Chromium, which reports what it saw back to this test.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const STORE = new URL('../../src/store/indexeddb-list-store.ts', import.meta.url).pathname;
const HASH_LIST = new URL('../../src/store/hash-list.ts', import.meta.url).pathname;
const SHA256 = new URL('../../src/url/sha256.ts', import.meta.url).pathname;

// Runs in the page: the store and HashList as `window.sbkit`, with `listOf` for a list of sorted hashes,
// and a helper that spoils a record.
const PAGE_SCRIPT = `
  import { IndexedDbListStore } from ${JSON.stringify(STORE)};
  import { checksumOf, HashList } from ${JSON.stringify(HASH_LIST)};
  import { sha256Portable } from ${JSON.stringify(SHA256)};
  const listOf = (name, version, hashes) => HashList.fromSorted(name, version, hashes, checksumOf(hashes, sha256Portable));
  window.sbkit = { IndexedDbListStore, HashList, listOf, sha256: sha256Portable };
  window.spoil = (database, name) => new Promise((resolve, reject) => {
    const open = indexedDB.open(database, 1);
    open.onsuccess = () => {
      const tx = open.result.transaction(['lists'], 'readwrite');
      const lists = tx.objectStore('lists');
      const get = lists.get(name);
      get.onsuccess = () => { const record = get.result; record.hashes[0] ^= 1; lists.put(record); };
      tx.oncomplete = () => { open.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  });`;

let server: Server;
let browser: Browser;
let page: Page;

before(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  const bundled = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: new URL('.', import.meta.url).pathname, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const script = bundled.outputFiles[0]!.text;
  server = createServer((request, response) => {
    if (request.url === '/store.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script type="module" src="/store.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  await page.waitForFunction('window.sbkit !== undefined');
});
after(async () => {
  await browser?.close();
  server?.close();
});

describe('IndexedDbListStore in Chromium', () => {
  it('keeps lists and state across openings, whole', { timeout: 60_000 }, async () => {
    const seen = await page.evaluate(`(async () => {
      const { IndexedDbListStore, HashList, listOf, sha256 } = window.sbkit;
      const store = await IndexedDbListStore.open('kept');
      const prefixes = HashList.empty('mw-4b', 4).applyUpdate({
        partial: false, version: new Uint8Array([7]), removals: new Uint32Array(0),
        additions: { width: 4, values: new Uint32Array([5, 0xffffff00]) },
        checksum: listOf('x', new Uint8Array(0), { width: 4, values: new Uint32Array([5, 0xffffff00]) }).checksum,
      }, sha256);
      await store.save(prefixes, 1234);
      await store.save(listOf('gc-32b', new Uint8Array([1, 2]), { width: 32, bytes: new Uint8Array(64).map((_, i) => i) }), 99);
      await store.writeState({ waits: { 'mw-4b': 60000 } });
      await store.drop('nothing-here');
      store.close();
      const again = await IndexedDbListStore.open('kept');
      const out = {
        lists: again.all().map((s) => [s.list.name, s.list.width, s.list.size, [...s.list.version], s.updatedAt]),
        listed: again.get('mw-4b').list.hasPrefix(0xffffff00),
        state: await again.readState(),
        where: again.fileOf('mw-4b'),
      };
      await again.drop('gc-32b');
      again.close();
      const third = await IndexedDbListStore.open('kept');
      out.afterDrop = third.all().map((s) => s.list.name);
      third.close();
      return out;
    })()`);
    assert.deepEqual(seen, {
      lists: [
        ['gc-32b', 32, 2, [1, 2], 99],
        ['mw-4b', 4, 2, [7], 1234],
      ],
      listed: true,
      state: { waits: { 'mw-4b': 60000 } },
      where: 'indexeddb:kept/mw-4b',
      afterDrop: ['mw-4b'],
    });
  });

  it('closes its connection for a newer version opened elsewhere, rather than blocking it', { timeout: 60_000 }, async () => {
    const seen = await page.evaluate(`(async () => {
      const store = await window.sbkit.IndexedDbListStore.open('upgraded');
      return await new Promise((resolve) => {
        const newer = indexedDB.open('upgraded', 2);
        newer.onblocked = () => resolve('blocked');
        newer.onsuccess = () => { newer.result.close(); resolve('opened'); };
        newer.onerror = () => resolve('error ' + newer.error);
      });
    })()`);
    assert.equal(seen, 'opened');
  });

  it('reports a record whose checksum fails, removes it, and keeps the others', { timeout: 60_000 }, async () => {
    const seen = await page.evaluate(`(async () => {
      const { IndexedDbListStore, listOf } = window.sbkit;
      const store = await IndexedDbListStore.open('damaged');
      await store.save(listOf('se-4b', new Uint8Array(0), { width: 4, values: new Uint32Array([1, 2, 3]) }), 1);
      await store.save(listOf('mw-4b', new Uint8Array(0), { width: 4, values: new Uint32Array([4]) }), 1);
      store.close();
      await window.spoil('damaged', 'se-4b');
      const damaged = [];
      const reopened = await IndexedDbListStore.open('damaged', { onDamaged: (error) => damaged.push([error.code, error.message]) });
      const names = reopened.all().map((s) => s.list.name);
      reopened.close();
      const last = await IndexedDbListStore.open('damaged', { onDamaged: (error) => damaged.push(['again', error.message]) });
      const out = { damaged, names, afterRemoval: last.all().map((s) => s.list.name) };
      last.close();
      return out;
    })()`);
    assert.deepEqual(seen, {
      damaged: [
        ['SBKIT_DATABASE_FILE', 'database file indexeddb:damaged/se-4b was not loaded (checksum mismatch); the list will be fetched again'],
      ],
      names: ['mw-4b'],
      afterRemoval: ['mw-4b'],
    });
  });
});
