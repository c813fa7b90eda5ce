// The client's side of Oblivious HTTP (RFC 9458 §4.3, §4.4; SB-2): a binary HTTP request encrypted to
// the gateway's key configuration (`message/ohttp-req`), and the gateway's answer to it read back
// (`message/ohttp-res`). WebCrypto only, so that every runtime sbkit's client runs on speaks it.

import { aesGcm, hkdfExpand, hkdfExtract, sealBase } from './hpke-sender.ts';
import { concatBytes } from '../../codec/concatenated.ts';
import { type KeyConfig, NK, NN, offersOurSuite, requestHeader, requestInfo, RESPONSE_LABEL, RESPONSE_NONCE, TAG } from './ohttp-keys.ts';
import { OhttpError } from '../wire-error.ts';

const encoder = new TextEncoder();

/** What a client keeps of its request to read the answer: the encapsulated key and the exported secret. */
export interface ClientRequestContext {
  enc: Uint8Array;
  secret: Uint8Array;
}

/**
 * Encrypts a binary HTTP request to a gateway's configuration (`message/ohttp-req`). `ephemeral` fixes
 * the client's ephemeral private key, for known-answer tests only. Throws OhttpError for an unusable
 * configuration.
 */
export async function encapsulateRequest(
  config: KeyConfig,
  request: Uint8Array,
  ephemeral?: Uint8Array,
): Promise<{ message: Uint8Array; context: ClientRequestContext }> {
  if (!offersOurSuite(config)) {
    throw new OhttpError(
      'unsupported',
      `key configuration ${config.keyId} offers no suite this client speaks (X25519, HKDF-SHA256, AES-128-GCM)`,
    );
  }
  const header = requestHeader(config.keyId);
  let sealed;
  try {
    sealed = await sealBase(config.publicKey, requestInfo(header), request, ephemeral);
  } catch (error) {
    // WebCrypto refuses a public key of small order, and a runtime without X25519 refuses any.
    throw new OhttpError('unsupported', `cannot encrypt to key configuration ${config.keyId} with X25519: ${(error as Error).message}`);
  }
  const secret = sealed.exportSecret(encoder.encode(RESPONSE_LABEL), RESPONSE_NONCE);
  return { message: concatBytes(header, sealed.enc, sealed.ciphertext), context: { enc: sealed.enc, secret } };
}

/** RFC 9458 §4.4: the response's AEAD key and nonce, from the exported secret, `enc` and the response nonce. */
function responseKeys(secret: Uint8Array, enc: Uint8Array, nonce: Uint8Array): { key: Uint8Array; iv: Uint8Array } {
  const prk = hkdfExtract(concatBytes(enc, nonce), secret);
  return { key: hkdfExpand(prk, encoder.encode('key'), NK), iv: hkdfExpand(prk, encoder.encode('nonce'), NN) };
}

/** Reads the gateway's `message/ohttp-res` to a request. Throws OhttpError. */
export async function decapsulateResponse(context: ClientRequestContext, message: Uint8Array): Promise<Uint8Array> {
  if (message.length < RESPONSE_NONCE + TAG) throw new OhttpError('malformed', 'the encapsulated response is too short');
  const { key, iv } = responseKeys(context.secret, context.enc, message.subarray(0, RESPONSE_NONCE));
  try {
    return await aesGcm('decrypt', key, iv, message.subarray(RESPONSE_NONCE));
  } catch {
    throw new OhttpError('decryption', 'the encapsulated response does not decrypt');
  }
}
