// The advisory of one threat type (SB-3), linked from the warning page.

import { ADVISORIES, DEFAULT_SETTINGS, NOTICE } from './threat-texts.js';

const advisory = ADVISORIES[new URLSearchParams(location.search).get('type') ?? ''];
if (advisory !== undefined) {
  document.title = advisory.title;
  document.getElementById('title').textContent = advisory.title;
  document.getElementById('text').textContent = advisory.text;
}
document.getElementById('notice').textContent = NOTICE;
const { googleData } = { ...DEFAULT_SETTINGS, ...(await chrome.storage.local.get('googleData')) };
document.getElementById('google').hidden = !googleData;
