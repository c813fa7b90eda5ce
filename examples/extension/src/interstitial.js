// The warning page (SB-3): suspected, never certain; one advisory link per threat type; "Advisory provided
// by Google" only when the options say the server's lists come from Google; "proceed anyway" remembered
// for this URL until the browser session ends (chrome.storage.session).

import { ADVISORIES, DEFAULT_SETTINGS, NOTICE } from './threat-texts.js';

const params = new URLSearchParams(location.search);
const url = params.get('url') ?? '';
const threats = (params.get('threats') ?? '').split(',').filter((type) => type in ADVISORIES);

document.getElementById('url').textContent = url;
document.getElementById('notice').textContent = NOTICE;
const list = document.getElementById('threats');
for (const type of threats.length > 0 ? threats : ['UNKNOWN']) {
  const item = document.createElement('li');
  const advisory = ADVISORIES[type];
  if (advisory === undefined) {
    item.textContent = 'A suspected threat';
  } else {
    const title = document.createElement('strong');
    title.textContent = advisory.title;
    const link = document.createElement('a');
    link.href = `advisory.html?type=${type}`;
    link.textContent = 'what this means';
    item.append(title, ' (', link, ')');
  }
  list.append(item);
}

const { googleData } = { ...DEFAULT_SETTINGS, ...(await chrome.storage.local.get('googleData')) };
document.getElementById('google').hidden = !googleData;

document.getElementById('back').addEventListener('click', async () => {
  const tab = await chrome.tabs.getCurrent();
  await chrome.tabs.update(tab.id, { url: 'chrome://newtab/' });
});

document.getElementById('proceed').addEventListener('click', async () => {
  if (!/^https?:/i.test(url)) return;
  const { proceeded = [] } = await chrome.storage.session.get('proceeded');
  if (!proceeded.includes(url)) await chrome.storage.session.set({ proceeded: [...proceeded, url] });
  location.replace(url);
});
