// HPKE's sender in base mode (RFC 9180 §5.1.1, §6.1), for the one suite Oblivious HTTP uses here:
// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, on any runtime with WebCrypto, Node included:
// X25519 and AES-GCM are WebCrypto's. HKDF is HMAC written here on the JavaScript SHA-256 (a dozen
// hashes of a block or two per request, microseconds), not WebCrypto's HKDF: HPKE's labeled steps need
// the pseudorandom key itself, which WebCrypto's HKDF keeps inside, and a dozen small synchronous
// HMACs cost less than a dozen asynchronous WebCrypto calls. The gateway's side (the recipient) is
// @hpke/core's, on Node (wire/ohttp/ohttp.ts).

import { concatBytes } from '../../codec/concatenated.ts';
import { sha256Portable as sha256 } from '../../url/sha256.ts';
import { AEAD_AES_128_GCM, KDF_HKDF_SHA256, KEM_X25519_HKDF_SHA256, NK, NN } from './ohttp-keys.ts';

const encoder = new TextEncoder();
const HASH_LENGTH = 32;
/** SHA-256's block: HMAC's keys are padded to it (RFC 2104). */
const BLOCK = 64;
const VERSION_LABEL = encoder.encode('HPKE-v1');
const KEM_SUITE = concatBytes(encoder.encode('KEM'), u16(KEM_X25519_HKDF_SHA256));
const HPKE_SUITE = concatBytes(encoder.encode('HPKE'), u16(KEM_X25519_HKDF_SHA256), u16(KDF_HKDF_SHA256), u16(AEAD_AES_128_GCM));
/** PKCS #8 for an X25519 private key, up to the key itself (RFC 8410): WebCrypto imports no raw private key. */
const X25519_PKCS8_PREFIX = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20);
const BASE_MODE = 0;

function u16(value: number): Uint8Array {
  return Uint8Array.of(value >> 8, value & 0xff);
}

/** A copy with its own ArrayBuffer: what WebCrypto's typings ask of the bytes they take. */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(bytes);
}

function subtle(): SubtleCrypto {
  return globalThis.crypto.subtle;
}

/** HMAC-SHA256 (RFC 2104). */
function hmac(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (key.length > BLOCK) key = sha256(key);
  const inner = new Uint8Array(BLOCK + data.length);
  const outer = new Uint8Array(BLOCK + HASH_LENGTH);
  inner.set(key);
  outer.set(key);
  for (let i = 0; i < BLOCK; i++) {
    inner[i]! ^= 0x36;
    outer[i]! ^= 0x5c;
  }
  inner.set(data, BLOCK);
  outer.set(sha256(inner), BLOCK);
  return sha256(outer);
}

/** HKDF-Extract (RFC 5869 §2.2); an empty salt stands for HashLen zeros, which HMAC pads to the same key. */
export function hkdfExtract(salt: Uint8Array, ikm: Uint8Array): Uint8Array {
  return hmac(salt, ikm);
}

/** HKDF-Expand (RFC 5869 §2.3), `length` bytes of at most 255 blocks. */
export function hkdfExpand(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let block: Uint8Array = new Uint8Array(0);
  for (let counter = 1, offset = 0; offset < length; counter++, offset += HASH_LENGTH) {
    block = hmac(prk, concatBytes(block, info, Uint8Array.of(counter)));
    out.set(block.subarray(0, Math.min(HASH_LENGTH, length - offset)), offset);
  }
  return out;
}

function labeledExtract(suite: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return hkdfExtract(salt, concatBytes(VERSION_LABEL, suite, encoder.encode(label), ikm));
}

function labeledExpand(suite: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number): Uint8Array {
  return hkdfExpand(prk, concatBytes(u16(length), VERSION_LABEL, suite, encoder.encode(label), info), length);
}

/** The sender's key pair of one message: fresh, or fixed by a known-answer test from a raw private key. */
async function ephemeralKeyPair(fixed: Uint8Array | undefined): Promise<{ privateKey: CryptoKey; publicKey: Uint8Array }> {
  const algorithm = { name: 'X25519' };
  if (fixed === undefined) {
    const pair = (await subtle().generateKey(algorithm, false, ['deriveBits'])) as CryptoKeyPair;
    return { privateKey: pair.privateKey, publicKey: new Uint8Array(await subtle().exportKey('raw', pair.publicKey)) };
  }
  const privateKey = await subtle().importKey('pkcs8', own(concatBytes(X25519_PKCS8_PREFIX, fixed)), algorithm, true, ['deriveBits']);
  const { x } = await subtle().exportKey('jwk', privateKey);
  const publicKey = Uint8Array.from(atob((x ?? '').replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0));
  return { privateKey, publicKey };
}

/** One message sealed to a recipient, and what its context can still export (RFC 9180 §5.3). */
export interface SealedMessage {
  /** The encapsulated key, `enc`. */
  enc: Uint8Array;
  ciphertext: Uint8Array;
  exportSecret(context: Uint8Array, length: number): Uint8Array;
}

/**
 * SealBase (RFC 9180 §6.1): encrypts `plaintext` to the X25519 public key `recipient` with `info`, as
 * the context's first (and only) message. `ephemeral` fixes the sender's private key, for known-answer
 * tests only. Rejects with the runtime's error when `recipient` is no X25519 public key.
 */
export async function sealBase(
  recipient: Uint8Array,
  info: Uint8Array,
  plaintext: Uint8Array,
  ephemeral?: Uint8Array,
): Promise<SealedMessage> {
  // Encap (§4.1): the shared secret of an ephemeral key and the recipient's.
  const [sender, recipientKey] = await Promise.all([
    ephemeralKeyPair(ephemeral),
    subtle().importKey('raw', own(recipient), { name: 'X25519' }, false, []),
  ]);
  const dh = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: recipientKey }, sender.privateKey, 8 * HASH_LENGTH));
  const enc = sender.publicKey;
  const eaePrk = labeledExtract(KEM_SUITE, new Uint8Array(0), 'eae_prk', dh);
  const sharedSecret = labeledExpand(KEM_SUITE, eaePrk, 'shared_secret', concatBytes(enc, recipient), HASH_LENGTH);
  // KeySchedule (§5.1), base mode: no PSK.
  const pskIdHash = labeledExtract(HPKE_SUITE, new Uint8Array(0), 'psk_id_hash', new Uint8Array(0));
  const infoHash = labeledExtract(HPKE_SUITE, new Uint8Array(0), 'info_hash', info);
  const secret = labeledExtract(HPKE_SUITE, sharedSecret, 'secret', new Uint8Array(0));
  const context = concatBytes(Uint8Array.of(BASE_MODE), pskIdHash, infoHash);
  const key = labeledExpand(HPKE_SUITE, secret, 'key', context, NK);
  const baseNonce = labeledExpand(HPKE_SUITE, secret, 'base_nonce', context, NN);
  const exporterSecret = labeledExpand(HPKE_SUITE, secret, 'exp', context, HASH_LENGTH);
  // The first message's nonce is the base nonce itself (sequence number 0), with no associated data.
  const ciphertext = await aesGcm('encrypt', key, baseNonce, plaintext);
  return {
    enc,
    ciphertext,
    exportSecret: (exporterContext, length) => labeledExpand(HPKE_SUITE, exporterSecret, 'sec', exporterContext, length),
  };
}

/** AES-128-GCM with a 16-byte tag after the ciphertext; decryption rejects when the tag does not match. */
export async function aesGcm(operation: 'encrypt' | 'decrypt', key: Uint8Array, iv: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await subtle().importKey('raw', own(key), 'AES-GCM', false, [operation]);
  return new Uint8Array(await subtle()[operation]({ name: 'AES-GCM', iv: own(iv) }, cryptoKey, own(data)));
}
