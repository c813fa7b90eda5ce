// The gateway's side of Oblivious HTTP (RFC 9458, SB-2): its keys, and the request it decrypts and the
// answer it encrypts. HPKE's recipient is @hpke/core's and the answer's AEAD node:crypto's, on Node;
// the client's side is written on WebCrypto alone (ohttp-client.ts, hpke-sender.ts), so the two are
// separate implementations that the tests hold to each other and to RFC 9458's example. The key
// configurations and the request header both share are in ohttp-keys.ts.

import { createCipheriv, createPrivateKey, createPublicKey, hkdfSync, randomBytes } from 'node:crypto';
import { Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256, type RecipientContext } from '@hpke/core';
import {
  AEAD_AES_128_GCM,
  KDF_HKDF_SHA256,
  KEM_X25519_HKDF_SHA256,
  type KeyConfig,
  NK,
  NN,
  NPK,
  REQUEST_HEADER,
  requestInfo,
  RESPONSE_LABEL,
  RESPONSE_NONCE,
  TAG,
} from './ohttp-keys.ts';
import { OhttpError } from '../wire-error.ts';

export { encodeKeyConfigs, KEY_PROBLEM_TYPE, type KeyConfig } from './ohttp-keys.ts';

const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

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
  if (message.length < REQUEST_HEADER + NPK + TAG) throw new OhttpError('malformed', 'the encapsulated request is too short');
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
  const header = data.subarray(0, REQUEST_HEADER);
  const enc = new Uint8Array(data.subarray(REQUEST_HEADER, REQUEST_HEADER + NPK));
  let recipient: RecipientContext;
  let request: Uint8Array;
  try {
    recipient = await suite.createRecipientContext({ recipientKey: key.privateKey, enc, info: requestInfo(header) });
    request = new Uint8Array(await recipient.open(data.subarray(REQUEST_HEADER + NPK)));
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
async function responseKeys(context: RecipientContext, enc: Uint8Array, nonce: Uint8Array): Promise<{ key: Buffer; iv: Buffer }> {
  const secret = new Uint8Array(await context.export(Buffer.from(RESPONSE_LABEL), RESPONSE_NONCE));
  const salt = Buffer.concat([enc, nonce]);
  return { key: Buffer.from(hkdfSync('sha256', secret, salt, 'key', NK)), iv: Buffer.from(hkdfSync('sha256', secret, salt, 'nonce', NN)) };
}
