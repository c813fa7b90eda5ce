// The extension's service worker: one Safe Browsing client in real-time mode (SB-4), whose memory cache
// of search answers lives as long as the worker, and whose threat lists, global cache list and request
// schedules (RF-2..5) are kept in IndexedDB, so that a worker stopped when idle starts again where it was.
// Every top-level navigation to an http(s) URL is checked; a suspected unsafe page is replaced by the
// warning page, unless the person chose to proceed to that URL earlier in this browser session.
//
// Chromium stops an idle service worker after about 30 seconds, and the client's timers with it, so
// list updates are driven by an alarm too, set to the moment the client's own schedule next allows one
// (RF-2's random first moment, the server's minimum wait, RF-4's back-off). The alarm only wakes the
// worker: update() asks for nothing whose wait is not over, so an alarm that fires early costs no request.

import { SafeBrowsingClient } from 'sbkit/browser';
import { DEFAULT_SETTINGS } from './threat-texts.js';

const UPDATE_ALARM = 'sbkit-update';
const TITLE = chrome.runtime.getManifest().action.default_title;

/** @type {Promise<SafeBrowsingClient> | undefined} */
let client;
/** The client whose schedule the alarm follows: not one replaced after the settings changed. */
let scheduled;
/** The latest verdict of each URL checked, newest last (at most 50): for the options page, and tests. */
const verdicts = new Map();
/** The URL each tab was last sent to the warning page for: a navigation is reported twice (before it starts, and once committed). */
const warned = new Map();

async function settings() {
  return { ...DEFAULT_SETTINGS, ...(await chrome.storage.local.get(Object.keys(DEFAULT_SETTINGS))) };
}

function currentClient() {
  client ??= settings().then(async ({ server, apiKey }) => {
    const made = new SafeBrowsingClient({
      server,
      apiKey: apiKey === '' ? undefined : apiKey,
      // One database per server: lists of one server are no use with another.
      databaseName: `sbkit ${server}`,
      // Four random decoy prefixes go with each search (SB-8), so that the server cannot tell which are the page's.
      decoyPrefixes: 4,
      onEvent: (event) => {
        console.debug('sbkit:', event.type, event);
        // After every update, answered or failed, the alarm follows the client's next moment.
        if (event.type === 'update' || event.type === 'update-failed') void armUpdateAlarm(made, event.nextUpdateAt);
      },
    });
    scheduled = made;
    try {
      // Keeps the global cache list current within the request-frequency rules, from a random moment of
      // the first minute on (RF-2); failed updates are events.
      await made.start();
      await armUpdateAlarm(made, made.nextUpdateAt);
    } catch (error) {
      // The check that follows meets the same error and says so on the toolbar.
      console.warn('sbkit: cannot start', error);
    }
    return made;
  });
  return client;
}

/** Wakes the worker when `made` may next update its lists: never sooner (Chromium may fire an alarm late, not early). */
async function armUpdateAlarm(made, when) {
  if (made === scheduled && when !== undefined) await chrome.alarms.create(UPDATE_ALARM, { when });
}

/** The alarm: whatever the client's schedule allows now, then the alarm again for the moment after. */
async function updateLists() {
  const made = await currentClient();
  try {
    await made.update();
  } catch (error) {
    console.warn('sbkit: cannot update', error);
  }
  await armUpdateAlarm(made, made.nextUpdateAt);
}

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === UPDATE_ALARM) void updateLists();
});
// A browser that starts again may have lost the alarm: the client, once made, sets it.
chrome.runtime.onStartup.addListener(() => void currentClient());
chrome.runtime.onInstalled.addListener(() => void currentClient());

chrome.storage.onChanged.addListener((_changes, area) => {
  if (area !== 'local') return;
  const old = client;
  client = undefined;
  scheduled = undefined;
  verdicts.clear();
  void old?.then((c) => c.close());
});

async function proceeded(url) {
  const { proceeded: urls = [] } = await chrome.storage.session.get('proceeded');
  return urls.includes(url);
}

function remember(url, verdict) {
  verdicts.delete(url);
  verdicts.set(url, verdict);
  if (verdicts.size > 50) verdicts.delete(verdicts.keys().next().value);
}

/** The toolbar's badge says that pages are not being checked, and its tooltip why. */
async function showUnprotected(error) {
  console.error('sbkit: pages are not being checked', error);
  await chrome.action.setBadgeBackgroundColor({ color: '#b00020' });
  await chrome.action.setBadgeText({ text: '!' });
  await chrome.action.setTitle({ title: `sbkit: pages are not being checked (${error.code ?? error.message})` });
}

/** A page was checked: no badge, and the extension's own tooltip. */
async function showProtected() {
  await chrome.action.setBadgeText({ text: '' });
  await chrome.action.setTitle({ title: TITLE });
}

/** SB-3: the URL the person is about to see; after a redirect, the committed URL is checked again (from the cache, mostly). */
async function guard(tabId, url) {
  if (!/^https?:/i.test(url)) return;
  if (await proceeded(url)) {
    remember(url, 'PROCEEDED');
    return;
  }
  let result;
  try {
    result = await (await currentClient()).checkUrl(url);
  } catch (error) {
    remember(url, `ERROR ${error.code ?? error.message}`);
    // A URL the pipeline cannot read (InvalidUrlError) is no web page to protect. Anything else (storage
    // that cannot be opened, say) means pages go unchecked: say so on the toolbar, and build the client
    // again at the next navigation rather than keep a broken one.
    if (!String(error.code ?? '').startsWith('SBKIT_INVALID_URL')) {
      client = undefined;
      void showUnprotected(error);
    }
    return;
  }
  // UNKNOWN: the page was not checked (the server unreachable or refusing, a wait of the request-frequency
  // rules in force, lists out of date), and the toolbar says so.
  if (result.verdict === 'UNKNOWN') void showUnprotected(result.error);
  else void showProtected();
  remember(url, result.verdict === 'UNKNOWN' ? `UNKNOWN, not checked: ${result.error.code}` : result.verdict);
  if (result.verdict !== 'UNSAFE' || warned.get(tabId) === url) return;
  warned.set(tabId, url);
  const threats = [...new Set(result.threats.filter((t) => t.enforced).map((t) => t.threatType))];
  const page = new URL(chrome.runtime.getURL('interstitial.html'));
  page.searchParams.set('url', url);
  page.searchParams.set('threats', threats.join(','));
  await chrome.tabs.update(tabId, { url: page.href });
}

/**
 * A tab's top-level document: frame 0, or a prerendered page's outermost frame (another frameId), which
 * becomes the tab's page on activation without a new navigation of frame 0.
 */
const topLevel = ({ frameId, frameType }) => frameId === 0 || frameType === 'outermost_frame';

chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (topLevel(details)) void guard(details.tabId, details.url);
});
chrome.webNavigation.onCommitted.addListener((details) => {
  if (!topLevel(details)) return;
  const { tabId, url } = details;
  // The warning is showing: the next navigation to that URL in this tab is warned about again.
  if (url.startsWith(chrome.runtime.getURL('interstitial.html'))) warned.delete(tabId);
  else void guard(tabId, url);
});
chrome.tabs.onRemoved.addListener((tabId) => warned.delete(tabId));

// The options page shows the latest verdicts.
chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  if (message?.type === 'verdicts') reply([...verdicts]);
});
