// A page that checks the links people type, in their own browser, with sbkit's browser build: real-time
// mode (SB-4) against a Safe Browsing server that allows this page's origin (CORS), the threat lists and
// the global cache list kept in IndexedDB. The server is this page's `?server=` parameter, http://127.0.0.1:8080 by default.
// With `?relay=`, searches go through that Oblivious HTTP relay (SB-2), encrypted to the server's key
// (its /ohttp-keys), so that the server does not learn who asks; the relay must allow this page's
// origin, as the server does. Without a relay of your own, `?relay=<server>/ohttp-gateway` sends them
// to the server's gateway directly: encrypted, but from your address.
// A server other than the default is named in a warning above the form: whoever wrote the link chose
// it, and its verdicts are only as good as it is.

import { InvalidUrlError, SafeBrowsingClient } from 'sbkit/browser';
import { serverResource } from './server-resource.js';

/** SB-3: suspected, never certain. */
const TITLES = {
  SOCIAL_ENGINEERING: 'Suspected phishing (social engineering)',
  MALWARE: 'Suspected malware',
  UNWANTED_SOFTWARE: 'Potentially unwanted software',
  POTENTIALLY_HARMFUL_APPLICATION: 'Potentially harmful application',
};

const parameters = new URLSearchParams(location.search);
const DEFAULT_SERVER = 'http://127.0.0.1:8080';
const server = parameters.get('server') ?? DEFAULT_SERVER;
const relay = parameters.get('relay');
const client = new SafeBrowsingClient({
  server,
  databaseName: `sbkit ${server}`,
  // Four random decoy prefixes go with each search (SB-8), so that the server cannot tell which are the link's.
  decoyPrefixes: 4,
  ...(relay === null ? {} : { ohttp: { relay, keys: serverResource(server, 'ohttp-keys') } }),
});
// Keeps the global cache list current within the request-frequency rules.
void client.start();

const form = document.getElementById('check');
const result = document.getElementById('result');
document.getElementById('server').textContent = server;
if (server !== DEFAULT_SERVER) {
  const chosen = document.getElementById('chosen-server');
  chosen.hidden = false;
  chosen.textContent = `The link that opened this page chose the Safe Browsing server ${server}: verdicts come from it. Use this page without "?server=" unless you trust that server.`;
}
if (relay !== null) document.getElementById('relay').textContent = `, through the Oblivious HTTP relay ${relay},`;
document.getElementById('notice').textContent =
  'Safe Browsing is not perfect: safe sites are sometimes flagged (false positives) and unsafe sites are sometimes missed (false negatives).';

function show(kind, ...content) {
  result.hidden = false;
  result.className = kind;
  result.replaceChildren(...content);
}

function paragraph(...content) {
  const p = document.createElement('p');
  p.append(...content);
  return p;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const typed = form.url.value.trim();
  // People leave the scheme out; the pipeline needs one.
  const url = /^[a-z][a-z0-9+.-]*:/i.test(typed) ? typed : `http://${typed}`;
  let verdict;
  try {
    verdict = await client.checkUrl(url);
  } catch (error) {
    show('error', paragraph(error instanceof InvalidUrlError ? `That is not a web address: ${error.message}` : String(error)));
    return;
  }
  const shown = document.createElement('span');
  shown.className = 'url';
  shown.textContent = verdict.canonicalUrl;
  if (verdict.verdict === 'UNSAFE') {
    const list = document.createElement('ul');
    for (const type of new Set(verdict.threats.filter((t) => t.enforced).map((t) => t.threatType))) {
      const item = document.createElement('li');
      const link = document.createElement('a');
      // The sbkit server's advisory of the threat type.
      link.href = serverResource(server, `advisory/${type}`);
      link.textContent = 'what this means';
      item.append(TITLES[type] ?? type, ' (', link, ')');
      list.append(item);
    }
    show('unsafe', paragraph(shown, ' is suspected to be unsafe:'), list, paragraph('You may want to stay away from it.'));
  } else if (verdict.verdict === 'UNKNOWN') {
    show('error', paragraph(shown, ` could not be checked (${verdict.error.message}); nothing is known of it either way.`));
  } else {
    show('safe', paragraph('No warning is known for ', shown, '. That does not make it safe.'));
  }
});
