// Two loopback HTTP listeners for a Firefox end-to-end run:
//  - a recording pass-through in front of the sbkit server: every request Firefox's Safe Browsing code makes
//    is forwarded byte for byte and logged (method, path, status, content type, sizes, response body), so
//    the server's view of the run is evidence without changing the server;
//  - the page Firefox opens: it polls until the harness says the list update has happened, then navigates
//    to the test URL.
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface RecordedRequest {
  seq: number;
  /** Milliseconds since the recorder started. */
  at: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  requestBytes: number;
  status: number;
  contentType: string;
  responseBytes: number;
  durationMs: number;
  /** The body of an error answer (status 400 and up) when it is text or JSON. */
  errorBody?: string;
  error?: string;
}

export interface Recorder {
  /** Base URL of the pass-through, to put in the provider prefs. */
  proxyUrl: string;
  /** Date.now() when the recorder started: the origin of `RecordedRequest.at` and `navigatedAt()`. */
  startedAt: number;
  /** URL of the start page Firefox opens. */
  pageUrl: string;
  requests: RecordedRequest[];
  /** Milliseconds since start when the page was told to navigate, or undefined. */
  navigatedAt(): number | undefined;
  /** From now on the page's next poll navigates to the target. */
  allowNavigation(): void;
  close(): Promise<void>;
}

const RECORDED_HEADERS = ['content-type', 'accept', 'x-http-method-override', 'user-agent'];

function startPage(target: string): string {
  const t = JSON.stringify(target);
  return `<!doctype html>
<meta charset="utf-8">
<title>sbkit Firefox e2e: waiting for the Safe Browsing update</title>
<p id="s">Waiting for Firefox's Safe Browsing list update, then navigating to <code>${target.replace(/</g, '&lt;')}</code>.</p>
<script>
async function poll() {
  try {
    const r = await fetch('/ready', { cache: 'no-store' });
    if ((await r.text()) === 'go') { location.href = ${t}; return; }
  } catch (e) {}
  setTimeout(poll, 500);
}
poll();
</script>
`;
}

async function listen(server: http.Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Starts both listeners. `upstream` is the sbkit server's base URL; `target` the URL the page navigates to;
 * `dumpDir` receives `requests.jsonl` and each response body as `NNN-response.bin`.
 */
export async function startRecorder(upstream: string, target: string, dumpDir: string): Promise<Recorder> {
  const started = Date.now();
  const requests: RecordedRequest[] = [];
  const up = new URL(upstream);
  let seq = 0;

  const forwardAndRecord = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const t0 = Date.now();
    const body = await readBody(req);
    const record: RecordedRequest = {
      seq: ++seq,
      at: t0 - started,
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: Object.fromEntries(RECORDED_HEADERS.filter((h) => req.headers[h] !== undefined).map((h) => [h, String(req.headers[h])])),
      requestBytes: body.length,
      status: 0,
      contentType: '',
      responseBytes: 0,
      durationMs: 0,
    };
    const headers = { ...req.headers, host: up.host };
    const forward = http.request({ host: up.hostname, port: up.port, method: record.method, path: record.url, headers }, (upRes) => {
      const chunks: Buffer[] = [];
      upRes.on('data', (c: Buffer) => chunks.push(c));
      upRes.on('end', () => {
        const payload = Buffer.concat(chunks);
        record.status = upRes.statusCode ?? 0;
        record.contentType = String(upRes.headers['content-type'] ?? '');
        record.responseBytes = payload.length;
        record.durationMs = Date.now() - t0;
        if (record.status >= 400 && /json|text/.test(record.contentType)) record.errorBody = payload.toString('utf8').slice(0, 1000);
        // Headers and body exactly as the server sent them (only the framing may change).
        const out = { ...upRes.headers };
        delete out['transfer-encoding'];
        out['content-length'] = String(payload.length);
        res.writeHead(record.status, out);
        res.end(payload);
        requests.push(record);
        void writeFile(join(dumpDir, `${String(record.seq).padStart(3, '0')}-response.bin`), payload).catch(() => {});
        void writeFile(join(dumpDir, 'requests.jsonl'), `${JSON.stringify(record)}\n`, { flag: 'a' }).catch(() => {});
      });
      upRes.on('error', (err) => fail(err));
    });
    const fail = (err: Error) => {
      record.error = err.message;
      record.durationMs = Date.now() - t0;
      requests.push(record);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recorder: upstream error: ${err.message}\n`);
    };
    forward.on('error', fail);
    forward.end(body);
  };
  const proxy = http.createServer((req, res) => {
    forwardAndRecord(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
  });

  let go = false;
  let navigated: number | undefined;
  const page = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/ready') {
      // Long poll: answer "go" as soon as navigation is allowed, else "wait" after a while, so that the
      // page makes few requests (each one is classified and logged by Firefox).
      const answer = () => {
        clearInterval(timer);
        if (go && navigated === undefined) navigated = Date.now() - started;
        if (res.writableEnded || res.destroyed) return;
        res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
        res.end(go ? 'go' : 'wait');
      };
      const waitedSince = Date.now();
      const timer = setInterval(() => {
        if (go || Date.now() - waitedSince > 15_000) answer();
      }, 100);
      req.on('close', () => clearInterval(timer));
      return;
    }
    if (path === '/' || path === '/start') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(startPage(target));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
  });

  const proxyUrl = await listen(proxy);
  const pageBase = await listen(page);
  return {
    proxyUrl,
    startedAt: started,
    pageUrl: `${pageBase}/start`,
    requests,
    navigatedAt: () => navigated,
    allowNavigation: () => {
      go = true;
    },
    close: async () => {
      proxy.closeAllConnections();
      page.closeAllConnections();
      await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => page.close(r))]);
    },
  };
}
