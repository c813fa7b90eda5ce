// The options page: the server and its API key (kept in chrome.storage.local, which the service worker
// watches), and the latest verdicts of the service worker, to see that it works.

import { DEFAULT_SETTINGS } from './threat-texts.js';

const form = document.getElementById('settings');
const status = document.getElementById('status');
const settings = { ...DEFAULT_SETTINGS, ...(await chrome.storage.local.get(Object.keys(DEFAULT_SETTINGS))) };
form.server.value = settings.server;
form.apiKey.value = settings.apiKey;
form.googleData.checked = settings.googleData;
document.getElementById('serve').textContent = `sbkit serve --cors-origin ${location.origin}`;

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  let server;
  try {
    server = new URL(form.server.value);
  } catch {
    server = undefined;
  }
  if (server === undefined || (server.protocol !== 'http:' && server.protocol !== 'https:')) {
    status.textContent = 'The server must be an http or https URL, such as http://127.0.0.1:8080.';
    return;
  }
  await chrome.storage.local.set({
    server: server.href.replace(/\/$/, ''),
    apiKey: form.apiKey.value.trim(),
    googleData: form.googleData.checked,
  });
  status.textContent = 'Saved.';
});

async function showVerdicts() {
  const verdicts = (await chrome.runtime.sendMessage({ type: 'verdicts' })) ?? [];
  const table = document.getElementById('verdicts');
  table.replaceChildren(
    ...verdicts.reverse().map(([url, verdict]) => {
      const row = document.createElement('tr');
      for (const text of [verdict, url]) row.insertCell().textContent = text;
      return row;
    }),
  );
}
await showVerdicts();
setInterval(() => void showVerdicts(), 2000);
