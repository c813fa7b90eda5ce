// The server's pages for people, as plain HTML rendered on the server (no script, no build step):
// the lookup form, the threat advisories, and the status dashboard with its chart of the last hour.
// SB-3: warnings never claim certainty, each threat links to its advisory, "Advisory provided by
// Google" appears only on verdicts from Google's data, and every page says protection is imperfect.

import type { ThreatTypeName } from '../../lists/threat-types.ts';
import type { LookupResult } from './lookup.ts';
import type { ServerStatus } from './status.ts';

/** How each threat type is named to people, and what its advisory says. */
const ADVISORIES: Readonly<Record<ThreatTypeName, { title: string; text: string }>> = {
  SOCIAL_ENGINEERING: {
    title: 'Suspected phishing (social engineering)',
    text: 'This page may try to trick you into giving away passwords, card numbers or other personal information, or into installing software, often by pretending to be a site you trust.',
  },
  MALWARE: {
    title: 'Suspected malware',
    text: 'This page may try to install software that harms your device, spies on you or steals information.',
  },
  UNWANTED_SOFTWARE: {
    title: 'Potentially unwanted software',
    text: 'This page may offer software that changes your browser or computer in ways you may not expect or want, such as your home page or search engine.',
  },
  POTENTIALLY_HARMFUL_APPLICATION: {
    title: 'Potentially harmful application',
    text: 'This page may offer apps for phones and tablets that could harm the device or misuse your data.',
  },
};

/** Google's page about its Safe Browsing warnings, for verdicts that come from Google's data. */
const GOOGLE_ADVISORY = 'https://developers.google.com/safe-browsing/v4/advisory';

const NOTICE =
  'Protection is not perfect: safe sites are sometimes flagged (false positives) and unsafe sites are sometimes missed (false negatives). A page not listed here is not thereby safe.';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The one stylesheet of every page, inline so that a page is one request; the Content-Security-Policy
 * (security-headers.ts) allows exactly this text by its hash. No `style` attributes: the policy would refuse them.
 */
export const PAGE_STYLE = `
body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;color:#1f2328;line-height:1.5}
nav a{margin-right:1rem}
form{display:flex;gap:.5rem;margin:1rem 0}
input[type=url],input[type=text]{flex:1;padding:.5rem;font-size:1rem}
button{padding:.5rem 1rem;font-size:1rem}
.verdict{padding:1rem;border-radius:.5rem;margin:1rem 0}
.unsafe{background:#ffebe9;border:1px solid #cf222e}
.safe{background:#dafbe1;border:1px solid #1a7f37}
.error,.unknown{background:#fff8c5;border:1px solid #9a6700}
table{border-collapse:collapse;width:100%;margin:1rem 0}
th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #d0d7de}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code{font-size:.9em}
footer{margin-top:2rem;font-size:.9em;color:#59636e}
.chart{background:#f6f8fa}
.answered{color:#1a7f37}
.refused{color:#bc4c00}
.failed{color:#cf222e}
`;

/**
 * The empty icon keeps browsers from asking for /favicon.ico with every page: a request that would count
 * against the person's budget under load control (LC-1) and end in a 404.
 */
function layout(title: string, body: string, extraHead = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · sbkit</title>
<link rel="icon" href="data:,">
${extraHead}<style>${PAGE_STYLE}</style>
</head>
<body>
<nav><a href="/">Lookup</a><a href="/status">Status</a><a href="/metrics">Metrics</a></nav>
${body}
<footer><p>${NOTICE}</p></footer>
</body>
</html>
`;
}

/**
 * The lookup page: the form, and the verdict of a lookup: UNSAFE, SAFE ("not listed"), UNKNOWN (`unknown`:
 * the lists' source did not answer, so nothing is known either way), or why the input has none (`error`).
 */
export function lookupPage(options: {
  url: string;
  result?: LookupResult;
  error?: string;
  unknown?: { reason: string; retryAfterSeconds: number };
  googleData: boolean;
}): string {
  const { url, result, error, unknown, googleData } = options;
  let verdict = '';
  if (error !== undefined) {
    verdict = `<section class="verdict error" id="verdict"><p>${escapeHtml(error)}</p></section>`;
  } else if (unknown !== undefined) {
    verdict = `<section class="verdict unknown" id="verdict"><p><strong>Unknown:</strong> <code>${escapeHtml(url)}</code> could not be checked just now (${escapeHtml(unknown.reason)}), so nothing is known of it either way. Please try again in ${unknown.retryAfterSeconds} seconds.</p></section>`;
  } else if (result !== undefined && result.verdict === 'UNSAFE') {
    const threats = result.threats
      .map(({ threatType, expressions }) => {
        const advisory = ADVISORIES[threatType];
        const matched = expressions.map((e) => `<code>${escapeHtml(e)}</code>`).join(', ');
        return `<li><strong>${escapeHtml(advisory.title)}</strong> (<a href="/advisory/${threatType}">what this means</a>): listed as ${matched}</li>`;
      })
      .join('\n');
    const attribution = googleData ? `<p class="attribution">Advisory provided by <a href="${GOOGLE_ADVISORY}">Google</a>.</p>` : '';
    verdict = `<section class="verdict unsafe" id="verdict">
<p><strong>Warning: <code>${escapeHtml(result.canonical)}</code> is suspected to be unsafe.</strong> Visiting it may harm you or your device.</p>
<ul>${threats}</ul>
${attribution}</section>`;
  } else if (result !== undefined) {
    verdict = `<section class="verdict safe" id="verdict"><p><strong>Not listed:</strong> <code>${escapeHtml(result.canonical)}</code> is on none of this server's threat lists. That does not prove it is safe.</p></section>`;
  }
  const body = `<h1>Look up a URL</h1>
<p>Checks a web address against this server's Safe Browsing lists, the way a browser would.</p>
<form method="get" action="/">
<input type="text" name="url" value="${escapeHtml(url)}" placeholder="http://example.com/page" aria-label="URL" required>
<button type="submit">Check</button>
</form>
${verdict}`;
  return layout('Lookup', body);
}

export function advisoryPage(threatType: ThreatTypeName, googleData: boolean): string {
  const advisory = ADVISORIES[threatType];
  const google = googleData
    ? `<p>For pages flagged from Google's data, see also Google's <a href="${GOOGLE_ADVISORY}">Safe Browsing advisory</a>.</p>`
    : '';
  return layout(
    advisory.title,
    `<h1>${escapeHtml(advisory.title)}</h1>\n<p>${escapeHtml(advisory.text)}</p>\n<p>If you think a page is listed by mistake, tell the people who run this server.</p>\n${google}`,
  );
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

/** Requests per minute over the last hour as stacked bars: answered, refused (503), failed. */
function chart(status: ServerStatus): string {
  const minutes = status.requests.perMinute;
  const peak = Math.max(1, ...minutes.map((m) => m.answered + m.refused + m.failed));
  const width = 600;
  const height = 120;
  const bar = width / minutes.length;
  const rects = minutes
    .map((m, i) => {
      let y = height;
      return (
        [
          [m.answered, '#1a7f37'],
          [m.refused, '#bc4c00'],
          [m.failed, '#cf222e'],
        ] as const
      )
        .filter(([count]) => count > 0)
        .map(([count, colour]) => {
          const h = (count / peak) * height;
          y -= h;
          return `<rect x="${(i * bar).toFixed(1)}" y="${y.toFixed(1)}" width="${(bar - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${colour}"><title>${new Date(m.minute).toISOString().slice(11, 16)} UTC: ${m.answered} answered, ${m.refused} refused, ${m.failed} failed</title></rect>`;
        })
        .join('');
    })
    .join('\n');
  return `<svg id="chart" role="img" aria-label="Requests per minute over the last hour" viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" width="100%" height="${height}" class="chart">
${rects}
</svg>
<p><span class="answered">■</span> answered <span class="refused">■</span> refused by load control <span class="failed">■</span> failed · peak ${peak} per minute</p>`;
}

export function statusPage(status: ServerStatus): string {
  const lists = status.lists
    .map(
      (l) =>
        `<tr><td><code>${escapeHtml(l.name)}</code></td><td>${escapeHtml(l.description)}</td><td><code>${escapeHtml(l.version.slice(0, 12))}</code></td><td class="n">${l.entries.toLocaleString('en')}</td><td>${escapeHtml(l.publishedAt.replace('T', ' ').slice(0, 19))} UTC</td><td class="n">${duration(l.ageSeconds)}</td></tr>`,
    )
    .join('\n');
  const notServed = status.lists.flatMap((l) =>
    l.unavailable === undefined ? [] : [`<li><code>${escapeHtml(l.name)}</code>: ${escapeHtml(l.unavailable)}</li>`],
  );
  const unavailable =
    notServed.length === 0
      ? ''
      : `<p>Requests for these lists get 503 now:</p>
<ul id="unavailable">
${notServed.join('\n')}
</ul>
`;
  const feeds =
    status.feeds.length === 0
      ? ''
      : `<h2>Feeds</h2>
<table id="feeds"><tr><th>list</th><th>source</th><th>state</th></tr>
${status.feeds
  .map(
    (f) =>
      `<tr class="${f.state}"><td><code>${escapeHtml(f.list)}</code></td><td>${escapeHtml(f.name)}</td><td>${escapeHtml(f.summary)}</td></tr>`,
  )
  .join('\n')}
</table>
`;
  const control = status.loadControl;
  const refusals =
    control === null
      ? '<p>Load control is off.</p>'
      : `<p>Now: in progress ${control.load}, waiting ${control.waiting}; limits ${control.shared ? 'shared through Redis' : "kept in this instance's memory"}.</p>
<table id="refusals"><tr><th>client class</th><th>admitted</th><th>refused (by reason)</th></tr>
${['browser', 'bot', 'crawler']
  .map((kind) => {
    const reasons = Object.entries(control.refused)
      .filter(([key]) => key.startsWith(`${kind}/`))
      .map(([key, n]) => `${escapeHtml(key.slice(kind.length + 1))}: ${n}`)
      .join(', ');
    return `<tr><td>${kind}</td><td class="n">${control.admitted[kind] ?? 0}</td><td>${reasons === '' ? '—' : reasons}</td></tr>`;
  })
  .join('\n')}
</table>`;
  const body = `<h1>Status</h1>
<p>sbkit ${escapeHtml(status.version)} serving ${escapeHtml(status.serving)}, up ${duration(status.uptimeSeconds)}.</p>
<h2>Lists</h2>
<table id="lists"><tr><th>list</th><th>holds</th><th>version</th><th>entries</th><th>published</th><th>age</th></tr>
${lists}
</table>
${unavailable}${feeds}<h2>Requests, last hour</h2>
<p>${status.requests.answered} answered, ${status.requests.refused} refused, ${status.requests.failed} failed.</p>
${chart(status)}
<h2>Load control</h2>
${refusals}
<h2>Web Risk submissions</h2>
<p>${status.submissions.received} received since the start, the last ${status.submissions.kept} kept for the operator (<code>GET /admin/submissions</code>); none is published in any list.</p>
<p>The same as JSON: <a href="/status.json">/status.json</a>. This page refreshes every 30 seconds.</p>`;
  return layout('Status', body, '<meta http-equiv="refresh" content="30">\n');
}
