// What the command line says when it cannot reach a server for a cause a person can fix: a certificate
// this machine does not trust (self-signed, or from a private CA), plain HTTP sent to a port that speaks
// TLS. Real sbkit servers on loopback with TLS (the package's createServer), asked by `sbkit status`
// and `sbkit check`.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXIT } from '../../../src/cli/io.ts';
import { createServer, demoCatalog, type SafeBrowsingServer } from '../../../src/server/index.ts';
import { run } from '../../cli/run.ts';
import { TestCa } from '../../server/tls-fixture.ts';

let dir: string;
const servers: SafeBrowsingServer[] = [];
/** Serves a self-signed certificate. */
let selfSigned: string;
/** Serves a certificate of a CA this machine does not know. */
let privateCa: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-untrusted-'));
  const ca = await TestCa.create(dir);
  const issued = await ca.issue('private.test');
  const own = await ca.selfSigned('self-signed.test');
  const start = async (tls: { cert: Buffer; key: Buffer }) => {
    const server = createServer({ catalog: demoCatalog(), host: '127.0.0.1', port: 0, tls });
    servers.push(server);
    return server.listen();
  };
  selfSigned = await start({ cert: await readFile(own.cert), key: await readFile(own.key) });
  privateCa = await start({ cert: await readFile(issued.cert), key: await readFile(issued.key) });
});
after(async () => {
  for (const server of servers) await server.close();
  await rm(dir, { recursive: true, force: true });
});

const TRUST =
  /this machine does not trust the server's certificate: give Node the CA that signed it .*NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem/;

describe('a server whose certificate this machine does not trust', () => {
  it('sbkit status names the certificate as the cause and NODE_EXTRA_CA_CERTS as the remedy', async () => {
    for (const [server, cause] of [
      [selfSigned, /self-signed certificate/],
      [privateCa, /unable to verify the first certificate/],
    ] as const) {
      const { status, err } = await run(['status', '--server', server]);
      assert.equal(status, EXIT.FAILED);
      // Node 24 adds advice of its own after the cause (--use-system-ca); sbkit's follows it.
      assert.match(err, new RegExp(`^sbkit status: cannot read ${server}/status\\.json: ${cause.source}(?:; [^;]+)?; ${TRUST.source}`));
      assert.doesNotMatch(err, /is "sbkit serve" running there/);
    }
  });

  it('sbkit check says the same of the URL it could not check', async () => {
    const { status, out } = await run(['check', '--server', selfSigned, 'http://safe.example/']);
    assert.equal(status, EXIT.FAILED);
    assert.match(out, /cannot reach https:\/\/127\.0\.0\.1:\d+\/v5\/hashes:search: self-signed certificate; /);
    assert.match(out, TRUST);
  });
});

describe('plain HTTP sent to a port that speaks TLS', () => {
  it('sbkit status and sbkit check say the server seems to speak TLS, and which https:// URL to use', async () => {
    const plain = selfSigned.replace(/^https:/, 'http:');
    const advice = `it seems to speak TLS; use ${selfSigned.replace(/[.]/g, '\\.')}`;
    const status = await run(['status', '--server', plain]);
    assert.equal(status.status, EXIT.FAILED);
    assert.match(
      status.err,
      new RegExp(`^sbkit status: cannot read ${plain.replace(/[.]/g, '\\.')}/status\\.json: other side closed; .*${advice}\n$`),
    );
    const check = await run(['check', '--server', plain, 'http://safe.example/']);
    assert.equal(check.status, EXIT.FAILED);
    assert.match(check.out, new RegExp(`cannot reach ${plain.replace(/[.]/g, '\\.')}/v5/hashes:search: socket hang up; .*${advice}`));
  });
});
