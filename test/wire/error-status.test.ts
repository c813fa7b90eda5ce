// What a client says of a server's answer other than 200 (error-status.ts). A refusal by sbkit's load
// control, read from a real server's 503 in binary and in JSON, says that the server refused the request
// for load, why, and when to ask again; another server's 429 or 503 says what it said and when to ask
// again; other statuses are told as they were. Real servers on loopback, asked by `sbkit check` and by
// the package's client.

import assert from 'node:assert/strict';
import { createServer as createHttpServer, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { SafeBrowsingClient, WireResponseError } from '../../src/index.ts';
import { createServer, demoCatalog, LoadControl, type SafeBrowsingServer } from '../../src/server/index.ts';
import { run } from '../cli/run.ts';

const closers: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const close of closers) await close();
});

/** An sbkit server whose load control lets a client's requests through while it sent at most 1 in the last 15 s. */
async function sbkitServer(): Promise<string> {
  const loadControl = await LoadControl.create({ settings: { burstMax: 1 } });
  const server: SafeBrowsingServer = createServer({ catalog: demoCatalog(), host: '127.0.0.1', port: 0, loadControl });
  closers.push(
    () => server.close(),
    async () => loadControl.close(),
  );
  return server.listen();
}

/** A server that answers every request with `status`, `headers` and `body`, as another Safe Browsing server (Google's) might. */
async function otherServer(status: number, headers: OutgoingHttpHeaders, body: string): Promise<string> {
  const server = createHttpServer((_request, response) => response.writeHead(status, headers).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What a client's update reports of the server's answer, if it fails. */
async function updateError(options: ConstructorParameters<typeof SafeBrowsingClient>[0]): Promise<Error | undefined> {
  const client = new SafeBrowsingClient({ mode: 'local', ...options });
  try {
    return (await client.update()).error;
  } finally {
    await client.close();
  }
}

/** The outcome of the first of at most `tries` attempts that `failed`. */
async function firstFailure<T>(tries: number, attempt: () => Promise<T>, failed: (outcome: T) => boolean): Promise<T> {
  for (let i = 1; ; i++) {
    const outcome = await attempt();
    if (failed(outcome)) return outcome;
    assert.ok(i < tries, `no failure in ${tries} tries`);
  }
}

async function updateFailure(options: ConstructorParameters<typeof SafeBrowsingClient>[0]): Promise<WireResponseError> {
  const error = await updateError(options);
  assert.ok(error instanceof WireResponseError, `a WireResponseError, not ${String(error)}`);
  return error;
}

const RATE_REFUSAL =
  'the server answered HTTP 503 UNAVAILABLE: its load control refused the request for load ' +
  '(SBKIT_LOAD_CONTROL_RATE: too many requests from this client in a short time; try again in 15 s); ' +
  'ask again in 15 s, as its Retry-After says';

describe('a refusal by load control', () => {
  it('sbkit check says the server refused for load, why, and when to ask again (binary protobuf)', async () => {
    const server = await sbkitServer();
    const refused = await firstFailure(
      4,
      () => run(['check', '--server', server, 'http://safe.example/']),
      (outcome) => outcome.status !== 0,
    );
    assert.ok(refused.out.includes(RATE_REFUSAL) || refused.err.includes(RATE_REFUSAL), refused.out + refused.err);
  });

  it('the client says the same, with the reason to branch on, from a JSON body', async () => {
    const server = await sbkitServer();
    const error = await firstFailure(
      4,
      () => updateError({ server, encoding: 'json' }),
      (outcome) => outcome !== undefined,
    );
    assert.ok(error instanceof WireResponseError, String(error));
    assert.equal(error.httpStatus, 503);
    assert.equal(error.reason, 'SBKIT_LOAD_CONTROL_RATE');
    assert.equal(error.retryAfter, '15');
    assert.equal(error.message, RATE_REFUSAL);
  });
});

describe("another server's answers", () => {
  it('a 429 with an ErrorInfo and a Retry-After date: what it said, its reason, and when to ask again', async () => {
    const body = JSON.stringify({
      error: {
        code: 429,
        message: 'Quota exceeded.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE_LIMIT_EXCEEDED', domain: 'googleapis.com' }],
      },
    });
    const retryAt = new Date(Date.now() + 120_000).toUTCString();
    const error = await updateFailure({
      server: await otherServer(429, { 'content-type': 'application/json', 'retry-after': retryAt }, body),
    });
    assert.equal(error.reason, 'RATE_LIMIT_EXCEEDED');
    assert.match(
      error.message,
      new RegExp(
        `^the server answered HTTP 429 RESOURCE_EXHAUSTED: Quota exceeded\\.; ask again after ${retryAt}, as its Retry-After says$`,
      ),
    );
  });

  it('a bare 503 says only its status; a 403 is told as before', async () => {
    const bare = await updateFailure({ server: await otherServer(503, {}, '') });
    assert.equal(bare.message, 'the server answered HTTP 503');
    assert.equal(bare.reason, undefined);
    const denied = await updateFailure({
      server: await otherServer(
        403,
        { 'content-type': 'application/json' },
        JSON.stringify({ error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } }),
      ),
    });
    assert.equal(denied.message, 'the server answered HTTP 403 PERMISSION_DENIED: API key not valid.');
  });
});
