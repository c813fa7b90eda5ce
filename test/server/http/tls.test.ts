import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import { parseServerConfig } from '../../../src/server/config/config.ts';
import { describeCertificate, parseTlsConfig, readTlsCredentials, type TlsFiles } from '../../../src/server/http/tls.ts';
import { TestCa } from '../tls-fixture.ts';

let dir: string;
let ca: TestCa;
let leaf: { cert: string; key: string };
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-tls-'));
  ca = await TestCa.create(dir);
  leaf = await ca.issue('tls.test');
});
after(() => rm(dir, { recursive: true, force: true }));

const FLAGS = { cert: '--tls-cert', key: '--tls-key' };
const files = (cert: string, key: string, origin: TlsFiles['origin'] = FLAGS): TlsFiles => ({ cert, key, origin });

describe('the tls section of the configuration', () => {
  it('takes a certificate and a key, relative to the configuration file', () => {
    assert.deepEqual(parseServerConfig({ tls: { cert: 'tls/chain.pem', key: '/etc/sbkit/key.pem' } }, '/srv/sbkit').tls, {
      cert: '/srv/sbkit/tls/chain.pem',
      key: '/etc/sbkit/key.pem',
    });
    assert.equal(parseServerConfig({}, '/srv').tls, undefined);
  });

  it('wants both, and nothing else', () => {
    assert.throws(() => parseTlsConfig({ cert: 'a.pem' }, 'tls', '/'), { field: 'tls.key', problem: /is required/ });
    assert.throws(() => parseTlsConfig({ cert: 'a.pem', key: 'b.pem', ca: 'c.pem' }, 'tls', '/'), {
      field: 'tls.ca',
      problem: /not a known setting/,
    });
    assert.throws(() => parseTlsConfig('cert.pem', 'tls', '/'), { field: 'tls', problem: /must be an object/ });
    assert.throws(() => parseTlsConfig({ cert: '', key: 'b.pem' }, 'tls', '/'), { field: 'tls.cert' });
  });
});

describe('readTlsCredentials', () => {
  it('reads a certificate and its key', async () => {
    const credentials = await readTlsCredentials(files(leaf.cert, leaf.key));
    assert.deepEqual(credentials.cert, await readFile(leaf.cert));
    assert.match(
      describeCertificate(credentials.cert),
      /^CN=tls\.test, valid until \d{4}-\d\d-\d\dT[\d:.]+Z, SHA-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}$/,
    );
  });

  it('names the setting and the file of what it cannot use', async () => {
    const other = await ca.issue('other.test');
    const garbage = join(dir, 'garbage.pem');
    await writeFile(garbage, 'not a certificate\n');
    const cases: [TlsFiles, string, RegExp][] = [
      [files(join(dir, 'missing.pem'), leaf.key), '--tls-cert', /cannot read .*missing\.pem: ENOENT/],
      [files(leaf.cert, join(dir, 'missing.key')), '--tls-key', /cannot read .*missing\.key/],
      [files(garbage, leaf.key), '--tls-cert', /garbage\.pem holds no PEM certificate/],
      [files(leaf.key, leaf.key), '--tls-cert', /holds no PEM certificate/],
      [files(leaf.cert, other.key), '--tls-key', /leaf-2\.key is not the key of the certificate in .*leaf-1\.pem/],
      [files(leaf.cert, garbage), '--tls-key', /garbage\.pem holds no PEM private key/],
    ];
    for (const [given, field, problem] of cases) {
      await assert.rejects(readTlsCredentials(given), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.field, field);
        assert.match(error.problem, problem);
        return true;
      });
    }
  });

  it('says which configuration file named the files', async () => {
    const copy = join(dir, 'copy.pem');
    await copyFile(leaf.cert, copy);
    await assert.rejects(
      readTlsCredentials(files(copy, join(dir, 'nope.key'), { cert: 'tls.cert', key: 'tls.key', file: '/srv/sbkit.json' })),
      { message: /^\/srv\/sbkit\.json: tls\.key: cannot read/ },
    );
  });
});
