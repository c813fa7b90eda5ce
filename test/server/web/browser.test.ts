import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { LoadControl } from '../../../src/server/guard/load-control.ts';
import { createServer, type SafeBrowsingServer } from '../../../src/server/http/server.ts';
import { demoCatalog } from '../fixture.ts';

// Debian's chromium (.ci/run installs it): the pages must work in a real browser, not only in inject().
const CHROMIUM = '/usr/bin/chromium';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47];

let server: SafeBrowsingServer;
let url: string;
let browser: Browser;
let loadControl: LoadControl;
let shots: string;

before(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`);
  shots = await mkdtemp(join(tmpdir(), 'sbkit-screenshots-'));
  loadControl = await LoadControl.create();
  server = createServer({ catalog: demoCatalog(), loadControl, serving: 'the embedded demo lists', port: 0 });
  url = await server.listen();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  await server?.close();
  await loadControl?.close();
  if (shots) await rm(shots, { recursive: true, force: true });
});

/** A page whose console errors are kept: a Content-Security-Policy violation shows there. */
async function watchedPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

/** The background colour the browser computed for the element, as `rgb(…)`. */
function backgroundOf(page: Page, selector: string): Promise<unknown> {
  return page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`);
}

describe('the pages in headless Chromium', () => {
  it('the lookup form checks a URL and shows the warning; a screenshot is taken', { timeout: 60_000 }, async () => {
    const { page, errors } = await watchedPage();
    const response = await page.goto(`${url}/`);
    assert.match((await response?.allHeaders())?.['content-security-policy'] ?? '', /default-src 'none'/);
    await page.fill('input[name=url]', 'http://testsafebrowsing.appspot.com/s/phishing.html');
    await Promise.all([page.waitForURL(/\?url=/), page.click('button[type=submit]')]);
    const verdict = await page.textContent('#verdict');
    assert.match(verdict ?? '', /suspected to be unsafe/);
    assert.match(verdict ?? '', /Suspected phishing/);
    await page.click('a[href="/advisory/SOCIAL_ENGINEERING"]');
    assert.match((await page.textContent('h1')) ?? '', /Suspected phishing/);
    const file = join(shots, 'lookup.png');
    await page.goBack();
    // The stylesheet applies under the policy, and the policy refused nothing the pages use.
    assert.equal(await backgroundOf(page, '#verdict'), 'rgb(255, 235, 233)');
    await page.screenshot({ path: file, fullPage: true });
    assert.deepEqual([...(await readFile(file)).subarray(0, 4)], PNG_SIGNATURE);
    assert.deepEqual(errors, []);
  });

  it('the status page shows the lists and the chart', { timeout: 60_000 }, async () => {
    const { page, errors } = await watchedPage();
    await page.goto(`${url}/status`);
    assert.equal(await backgroundOf(page, '#chart'), 'rgb(246, 248, 250)');
    assert.ok((await page.locator('#lists tr').count()) > 5, 'a row per demo list');
    assert.ok(await page.locator('#chart').isVisible());
    const file = join(shots, 'status.png');
    await page.screenshot({ path: file, fullPage: true });
    assert.ok((await readFile(file)).length > 1000);
    assert.deepEqual(errors, []);
  });
});
