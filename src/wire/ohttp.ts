// Oblivious HTTP (RFC 9458) encapsulation, for SB-2: the client encrypts a binary HTTP request to the
// gateway's public key; a relay passes it on seeing only who sent it; the gateway sees only what was
// asked. HPKE is @hpke/core's; this file is the framing around it: key configurations
// (`application/ohttp-keys`), `message/ohttp-req` and `message/ohttp-res`. One suite is supported, the
// one of RFC 9458's example: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM.

import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, hkdfSync, randomBytes } from 'node:crypto';
import { Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256, type RecipientContext, type SenderContext } from '@hpke/core';
import { OhttpError } from './wire-error.ts';

const KEM_X25519_HKDF_SHA256 = 0x0020;
const KDF_HKDF_SHA256 = 0x0001;
const AEAD_AES_128_GCM = 0x0001;
/** RFC 9458 §5.3: the problem type a gateway answers for a request under a key it does not hold. */
export const KEY_PROBLEM_TYPE = 'https://iana.org/assignments/http-problem-types#ohttp-key';

const NPK = 32;
const NK = 16;
const NN = 12;
const TAG = 16;
/** max(Nn, Nk): the length of the response nonce and of the exported secret (RFC 9458 §4.4). */
const RESPONSE_NONCE = Math.max(NN, NK);
const REQUEST_LABEL = 'message/bhttp request';
const RESPONSE_LABEL = 'message/bhttp response';

const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

/** A gateway's key configuration (RFC 9458 §3). */
export interface KeyConfig {
  keyId: number;
  kemId: number;
  publicKey: Uint8Array;
  suites: { kdfId: number; aeadId: number }[];
}

function encodeKeyConfig(config: KeyConfig): Uint8Array {
  const head = Buffer.alloc(5);
  head.writeUInt8(config.keyId);
  head.writeUInt16BE(config.kemId, 1);
  const suites = Buffer.alloc(2 + 4 * config.suites.length);
  suites.writeUInt16BE(4 * config.suites.length);
  config.suites.forEach((s, i) => {
    suites.writeUInt16BE(s.kdfId, 2 + 4 * i);
    suites.writeUInt16BE(s.aeadId, 4 + 4 * i);
  });
  return Buffer.concat([head.subarray(0, 3), config.publicKey, suites]);
}

/** `application/ohttp-keys`: each configuration prefixed by its 2-byte length (RFC 9458 §3.2). */
export function encodeKeyConfigs(configs: readonly KeyConfig[]): Uint8Array {
  return Buffer.concat(
    configs.map((config) => {
      const encoded = encodeKeyConfig(config);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(encoded.length);
      return Buffer.concat([length, encoded]);
    }),
  );
}

/** Parses `application/ohttp-keys`; configurations of suites other than ours are skipped. Throws OhttpError. */
export function parseKeyConfigs(bytes: Uint8Array): KeyConfig[] {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const configs: KeyConfig[] = [];
  let offset = 0;
  while (offset < data.length) {
    if (offset + 2 > data.length) throw new OhttpError('malformed', 'the key configurations end inside a length');
    const length = data.readUInt16BE(offset);
    offset += 2;
    if (offset + length > data.length) throw new OhttpError('malformed', 'the key configurations end inside a configuration');
    const config = parseKeyConfig(data.subarray(offset, offset + length));
    offset += length;
    if (config !== undefined) configs.push(config);
  }
  return configs;
}

function parseKeyConfig(data: Buffer): KeyConfig | undefined {
  if (data.length < 3) throw new OhttpError('malformed', 'a key configuration is shorter than its header');
  const keyId = data.readUInt8(0);
  const kemId = data.readUInt16BE(1);
  // Only the X25519 KEM's public key length is known here; another KEM's configuration is skipped whole.
  if (kemId !== KEM_X25519_HKDF_SHA256) return undefined;
  if (data.length < 3 + NPK + 2) throw new OhttpError('malformed', `key configuration ${keyId} is too short for an X25519 key`);
  const publicKey = new Uint8Array(data.subarray(3, 3 + NPK));
  const suitesLength = data.readUInt16BE(3 + NPK);
  if (suitesLength % 4 !== 0 || 5 + NPK + suitesLength !== data.length)
    throw new OhttpError('malformed', `key configuration ${keyId} has a broken list of algorithms`);
  const suites = [];
  for (let o = 5 + NPK; o < data.length; o += 4) suites.push({ kdfId: data.readUInt16BE(o), aeadId: data.readUInt16BE(o + 2) });
  return { keyId, kemId, publicKey, suites };
}

/** What a client keeps of its request to read the answer. */
export interface ClientRequestContext {
  enc: Uint8Array;
  sender: SenderContext;
}

/** The 7-byte header of a request: key ID, KEM, KDF, AEAD. */
function requestHeader(keyId: number): Buffer {
  const header = Buffer.alloc(7);
  header.writeUInt8(keyId);
  header.writeUInt16BE(KEM_X25519_HKDF_SHA256, 1);
  header.writeUInt16BE(KDF_HKDF_SHA256, 3);
  header.writeUInt16BE(AEAD_AES_128_GCM, 5);
  return header;
}

function requestInfo(header: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(REQUEST_LABEL), Buffer.of(0), header]);
}

/**
 * Encrypts a binary HTTP request to a gateway's configuration (`message/ohttp-req`). `ephemeral` fixes
 * the client's ephemeral key, for known-answer tests only. Throws OhttpError for an unusable configuration.
 */
export async function encapsulateRequest(
  config: KeyConfig,
  request: Uint8Array,
  ephemeral?: Uint8Array,
): Promise<{ message: Uint8Array; context: ClientRequestContext }> {
  if (config.kemId !== KEM_X25519_HKDF_SHA256 || !config.suites.some((s) => s.kdfId === KDF_HKDF_SHA256 && s.aeadId === AEAD_AES_128_GCM)) {
    throw new OhttpError(
      'unsupported',
      `key configuration ${config.keyId} offers no suite this client speaks (X25519, HKDF-SHA256, AES-128-GCM)`,
    );
  }
  const header = requestHeader(config.keyId);
  const recipientPublicKey = await suite.kem.deserializePublicKey(config.publicKey);
  const ekm =
    ephemeral === undefined
      ? undefined
      : {
          // A copy: importKey takes an ArrayBuffer of the key's bytes alone.
          privateKey: await suite.kem.importKey('raw', ephemeral.slice().buffer, false),
          publicKey: await suite.kem.deserializePublicKey(x25519PublicKey(ephemeral)),
        };
  const sender = await suite.createSenderContext({ recipientPublicKey, info: requestInfo(header), ...(ekm === undefined ? {} : { ekm }) });
  const enc = new Uint8Array(sender.enc);
  const sealed = new Uint8Array(await sender.seal(request));
  return { message: Buffer.concat([header, enc, sealed]), context: { enc, sender } };
}

/** Reads the gateway's `message/ohttp-res` to a request. Throws OhttpError. */
export async function decapsulateResponse(context: ClientRequestContext, message: Uint8Array): Promise<Uint8Array> {
  if (message.length < RESPONSE_NONCE + TAG) throw new OhttpError('malformed', 'the encapsulated response is too short');
  const nonce = message.subarray(0, RESPONSE_NONCE);
  const { key, iv } = await responseKeys(context.sender, context.enc, nonce);
  return open(key, iv, message.subarray(RESPONSE_NONCE));
}

/** A private key as the HPKE library holds it. */
type PrivateKey = Awaited<ReturnType<typeof suite.kem.importKey>>;

/** A gateway's key: its configuration and private key. */
export interface GatewayKey {
  config: KeyConfig;
  privateKey: PrivateKey;
}

/** A new key pair for key ID `keyId`. */
export async function generateGatewayKey(keyId: number): Promise<GatewayKey> {
  const pair = await suite.kem.generateKeyPair();
  return gatewayKey(keyId, pair.privateKey, new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey)));
}

/** A gateway key from a raw X25519 private key (RFC 9458's example gives one). */
export async function importGatewayKey(keyId: number, privateKey: Uint8Array): Promise<GatewayKey> {
  const imported = await suite.kem.importKey('raw', privateKey.slice().buffer, false);
  return gatewayKey(keyId, imported, x25519PublicKey(privateKey));
}

/** PKCS #8 for an X25519 private key, up to the key itself (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** The X25519 public key of a raw private key. */
function x25519PublicKey(privateKey: Uint8Array): Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, privateKey]), format: 'der', type: 'pkcs8' });
  return new Uint8Array(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-NPK));
}

function gatewayKey(keyId: number, privateKey: PrivateKey, publicKey: Uint8Array): GatewayKey {
  return {
    config: { keyId, kemId: KEM_X25519_HKDF_SHA256, publicKey, suites: [{ kdfId: KDF_HKDF_SHA256, aeadId: AEAD_AES_128_GCM }] },
    privateKey,
  };
}

/** What a gateway keeps of a request to answer it. */
export interface GatewayRequestContext {
  enc: Uint8Array;
  recipient: RecipientContext;
}

/**
 * Decrypts a `message/ohttp-req` with whichever of `keys` it names. Throws OhttpError: malformed,
 * an unknown key ID, an unsupported suite, or a message that does not decrypt.
 */
export async function decapsulateRequest(
  keys: readonly GatewayKey[],
  message: Uint8Array,
): Promise<{ request: Uint8Array; context: GatewayRequestContext }> {
  if (message.length < 7 + NPK + TAG) throw new OhttpError('malformed', 'the encapsulated request is too short');
  const data = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const keyId = data.readUInt8(0);
  const key = keys.find((k) => k.config.keyId === keyId);
  if (key === undefined)
    throw new OhttpError('unknown-key', `key ID ${keyId} is not one of this gateway's keys; fetch its key configuration again`);
  if (
    data.readUInt16BE(1) !== KEM_X25519_HKDF_SHA256 ||
    data.readUInt16BE(3) !== KDF_HKDF_SHA256 ||
    data.readUInt16BE(5) !== AEAD_AES_128_GCM
  ) {
    throw new OhttpError('unsupported', 'the request uses an HPKE suite this gateway does not offer');
  }
  const header = data.subarray(0, 7);
  const enc = new Uint8Array(data.subarray(7, 7 + NPK));
  let recipient: RecipientContext;
  let request: Uint8Array;
  try {
    recipient = await suite.createRecipientContext({ recipientKey: key.privateKey, enc, info: requestInfo(header) });
    request = new Uint8Array(await recipient.open(data.subarray(7 + NPK)));
  } catch {
    throw new OhttpError('decryption', 'the encapsulated request does not decrypt with the key it names');
  }
  return { request, context: { enc, recipient } };
}

/** Encrypts the answer to a request (`message/ohttp-res`). `nonce` is fixed only in known-answer tests. */
export async function encapsulateResponse(
  context: GatewayRequestContext,
  response: Uint8Array,
  nonce: Uint8Array = randomBytes(RESPONSE_NONCE),
): Promise<Uint8Array> {
  const { key, iv } = await responseKeys(context.recipient, context.enc, nonce);
  const cipher = createCipheriv('aes-128-gcm', key, iv);
  return Buffer.concat([nonce, cipher.update(response), cipher.final(), cipher.getAuthTag()]);
}

/** RFC 9458 §4.4: the response's AEAD key and nonce, from the HPKE context's exported secret. */
async function responseKeys(
  context: SenderContext | RecipientContext,
  enc: Uint8Array,
  nonce: Uint8Array,
): Promise<{ key: Buffer; iv: Buffer }> {
  const secret = new Uint8Array(await context.export(Buffer.from(RESPONSE_LABEL), RESPONSE_NONCE));
  const salt = Buffer.concat([enc, nonce]);
  return { key: Buffer.from(hkdfSync('sha256', secret, salt, 'key', NK)), iv: Buffer.from(hkdfSync('sha256', secret, salt, 'nonce', NN)) };
}

function open(key: Buffer, iv: Buffer, sealed: Uint8Array): Uint8Array {
  const decipher = createDecipheriv('aes-128-gcm', key, iv);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG)), decipher.final()]);
  } catch {
    throw new OhttpError('decryption', 'the encapsulated response does not decrypt');
  }
}
