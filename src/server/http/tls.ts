// TLS for `sbkit serve`: the certificate and key files (PEM) named by `--tls-cert`/`--tls-key` or the
// configuration's `tls` section, read and checked before they are served: a key that does not match its
// certificate, or a file that is no PEM, is refused with the file and the setting named, at start and at
// a reload alike (a reload then keeps the certificate in service).

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { ConfigError } from '../config/config-error.ts';
import { expectKnownFields, expectObject, expectString, fieldOf } from '../config/config-fields.ts';

/** Where the certificate chain and its private key are. */
export interface TlsPaths {
  /** PEM: the server's certificate first, then the intermediates. Absolute. */
  cert: string;
  /** PEM: the private key of the certificate. Absolute. */
  key: string;
}

/** Where the certificate chain and its key are, and where that was said, for errors. */
export interface TlsFiles extends TlsPaths {
  /** The settings that named them: `tls.cert`/`tls.key` and the configuration file, or the flags. */
  origin: { cert: string; key: string; file?: string };
}

/** A certificate chain and its key, read and checked: what the server serves. */
export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
}

const TLS_FIELDS = ['cert', 'key'] as const;

/**
 * The configuration's `tls` section: `{ "cert": FILE, "key": FILE }`, paths relative to `baseDir` (the
 * configuration file's folder). Undefined when absent.
 *
 * @throws ConfigError naming the first bad field.
 */
export function parseTlsConfig(value: unknown, field: string, baseDir: string): TlsPaths | undefined {
  if (value === undefined) return undefined;
  const section = expectObject(value, field);
  expectKnownFields(section, TLS_FIELDS, field);
  for (const key of TLS_FIELDS) {
    if (section[key] === undefined) throw new ConfigError(fieldOf(field, key), 'is required: TLS needs a certificate and its key');
  }
  return {
    cert: resolve(baseDir, expectString(section.cert, fieldOf(field, 'cert'))),
    key: resolve(baseDir, expectString(section.key, fieldOf(field, 'key'))),
  };
}

async function readPem(path: string, setting: string, file: string | undefined): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ConfigError(setting, `cannot read ${path}: ${(error as Error).message}`, file);
  }
}

/**
 * Reads the files and checks that they make a certificate and its key, as the server will use them.
 *
 * @throws ConfigError naming the setting and the file: unreadable, no PEM certificate or key, a key
 *   that is not the certificate's.
 */
export async function readTlsCredentials(files: TlsFiles): Promise<TlsCredentials> {
  const { origin } = files;
  const cert = await readPem(files.cert, origin.cert, origin.file);
  const key = await readPem(files.key, origin.key, origin.file);
  try {
    new X509Certificate(cert);
  } catch (error) {
    throw new ConfigError(origin.cert, `${files.cert} holds no PEM certificate: ${(error as Error).message}`, origin.file);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    const problem = /mismatch/i.test((error as Error).message)
      ? `${files.key} is not the key of the certificate in ${files.cert}`
      : `${files.key} holds no PEM private key OpenSSL can use: ${(error as Error).message}`;
    throw new ConfigError(origin.key, problem, origin.file);
  }
  return { cert, key };
}

/** The served certificate in one line for the log: subject, expiry and SHA-256 fingerprint. */
export function describeCertificate(cert: Buffer): string {
  const certificate = new X509Certificate(cert);
  const subject = certificate.subject.replace(/\n/g, ', ');
  return `${subject}, valid until ${new Date(certificate.validTo).toISOString()}, SHA-256 ${certificate.fingerprint256}`;
}
