// A throwaway certificate authority for tests, made with openssl at test time (no private key is kept
// in the repository), the certificates it issues for 127.0.0.1 and localhost, and self-signed ones.

import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** openssl req's arguments for a new P-256 key, not encrypted. */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** A CA in `dir`: its certificate to trust, and leaf certificates issued on demand. */
export class TestCa {
  private issued = 0;

  private constructor(
    private readonly dir: string,
    /** The CA's certificate (PEM), for a client's `ca`. */
    readonly cert: Buffer,
  ) {}

  static async create(dir: string): Promise<TestCa> {
    const key = join(dir, 'ca.key');
    const cert = join(dir, 'ca.pem');
    await selfSign(key, cert, 'sbkit test CA', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign']);
    return new TestCa(dir, await readFile(cert));
  }

  /** A certificate for 127.0.0.1 and localhost with `commonName`, and its key: the paths of both PEM files. */
  async issue(commonName: string): Promise<{ cert: string; key: string }> {
    const n = ++this.issued;
    const key = join(this.dir, `leaf-${n}.key`);
    const csr = join(this.dir, `leaf-${n}.csr`);
    const cert = join(this.dir, `leaf-${n}.pem`);
    const extensions = join(this.dir, `leaf-${n}.ext`);
    await writeFile(extensions, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
    const subject = ['-subj', `/CN=${commonName}`];
    await run('openssl', ['req', ...NEW_KEY, '-keyout', key, '-out', csr, ...subject]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      join(this.dir, 'ca.pem'),
      '-CAkey',
      join(this.dir, 'ca.key'),
      '-CAcreateserial',
      '-out',
      cert,
      '-days',
      '2',
      '-extfile',
      extensions,
    ]);
    return { cert, key };
  }

  /** A certificate for 127.0.0.1 and localhost signed by its own key, no CA's: the paths of both PEM files. */
  async selfSigned(commonName: string): Promise<{ cert: string; key: string }> {
    const n = ++this.issued;
    const key = join(this.dir, `self-signed-${n}.key`);
    const cert = join(this.dir, `self-signed-${n}.pem`);
    await selfSign(key, cert, commonName, ['subjectAltName=IP:127.0.0.1,DNS:localhost']);
    return { cert, key };
  }
}

/** A new P-256 key in `key` and a certificate for it, signed by itself, in `cert`, valid two days, with these extensions. */
async function selfSign(key: string, cert: string, commonName: string, extensions: readonly string[]): Promise<void> {
  const added = extensions.flatMap((extension) => ['-addext', extension]);
  await run('openssl', ['req', '-x509', ...NEW_KEY, '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${commonName}`, ...added]);
}
