// Oblivious HTTP's framing that both ends share (RFC 9458, SB-2): the gateway's key configurations
// (`application/ohttp-keys`, §3) and the header and HPKE info of a request (§4.3). One suite is
// supported, the one of RFC 9458's example: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM.
// Plain bytes, no Node built-in: the client's side runs on any runtime.

import { concatBytes } from '../../codec/concatenated.ts';
import { OhttpError } from '../wire-error.ts';

export const KEM_X25519_HKDF_SHA256 = 0x0020;
export const KDF_HKDF_SHA256 = 0x0001;
export const AEAD_AES_128_GCM = 0x0001;
/** RFC 9458 §5.3: the problem type a gateway answers for a request under a key it does not hold. */
export const KEY_PROBLEM_TYPE = 'https://iana.org/assignments/http-problem-types#ohttp-key';

/** Npk: an X25519 public key. */
export const NPK = 32;
/** Nk, Nn and the tag of AES-128-GCM. */
export const NK = 16;
export const NN = 12;
export const TAG = 16;
/** The 7 bytes before the encapsulated key: key ID, KEM, KDF, AEAD. */
export const REQUEST_HEADER = 7;
/** max(Nn, Nk): the length of the response nonce and of the exported secret (RFC 9458 §4.4). */
export const RESPONSE_NONCE = Math.max(NN, NK);
export const RESPONSE_LABEL = 'message/bhttp response';
const REQUEST_LABEL = 'message/bhttp request';

/** A gateway's key configuration (RFC 9458 §3). */
export interface KeyConfig {
  keyId: number;
  kemId: number;
  publicKey: Uint8Array;
  suites: { kdfId: number; aeadId: number }[];
}

/** Whether a configuration offers the suite this code speaks. */
export function offersOurSuite(config: KeyConfig): boolean {
  return config.kemId === KEM_X25519_HKDF_SHA256 && config.suites.some((s) => s.kdfId === KDF_HKDF_SHA256 && s.aeadId === AEAD_AES_128_GCM);
}

function encodeKeyConfig(config: KeyConfig): Uint8Array {
  const out = new Uint8Array(3 + config.publicKey.length + 2 + 4 * config.suites.length);
  const view = new DataView(out.buffer);
  view.setUint8(0, config.keyId);
  view.setUint16(1, config.kemId);
  out.set(config.publicKey, 3);
  let offset = 3 + config.publicKey.length;
  view.setUint16(offset, 4 * config.suites.length);
  for (const suite of config.suites) {
    view.setUint16(offset + 2, suite.kdfId);
    view.setUint16(offset + 4, suite.aeadId);
    offset += 4;
  }
  return out;
}

/** `application/ohttp-keys`: each configuration prefixed by its 2-byte length (RFC 9458 §3.2). */
export function encodeKeyConfigs(configs: readonly KeyConfig[]): Uint8Array {
  const encoded = configs.map(encodeKeyConfig);
  const out = new Uint8Array(encoded.reduce((size, config) => size + 2 + config.length, 0));
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const config of encoded) {
    view.setUint16(offset, config.length);
    out.set(config, offset + 2);
    offset += 2 + config.length;
  }
  return out;
}

/** Parses `application/ohttp-keys`; configurations of suites other than ours are skipped. Throws OhttpError. */
export function parseKeyConfigs(bytes: Uint8Array): KeyConfig[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const configs: KeyConfig[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (offset + 2 > bytes.length) throw new OhttpError('malformed', 'the key configurations end inside a length');
    const length = view.getUint16(offset);
    offset += 2;
    if (offset + length > bytes.length) throw new OhttpError('malformed', 'the key configurations end inside a configuration');
    const config = parseKeyConfig(bytes.subarray(offset, offset + length));
    offset += length;
    if (config !== undefined) configs.push(config);
  }
  return configs;
}

function parseKeyConfig(data: Uint8Array): KeyConfig | undefined {
  if (data.length < 3) throw new OhttpError('malformed', 'a key configuration is shorter than its header');
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const keyId = view.getUint8(0);
  const kemId = view.getUint16(1);
  // Only the X25519 KEM's public key length is known here; another KEM's configuration is skipped whole.
  if (kemId !== KEM_X25519_HKDF_SHA256) return undefined;
  if (data.length < 3 + NPK + 2) throw new OhttpError('malformed', `key configuration ${keyId} is too short for an X25519 key`);
  const publicKey = data.slice(3, 3 + NPK);
  const suitesLength = view.getUint16(3 + NPK);
  if (suitesLength % 4 !== 0 || 5 + NPK + suitesLength !== data.length)
    throw new OhttpError('malformed', `key configuration ${keyId} has a broken list of algorithms`);
  const suites = [];
  for (let o = 5 + NPK; o < data.length; o += 4) suites.push({ kdfId: view.getUint16(o), aeadId: view.getUint16(o + 2) });
  return { keyId, kemId, publicKey, suites };
}

/** The header of a request under key `keyId` in our suite (RFC 9458 §4.3). */
export function requestHeader(keyId: number): Uint8Array {
  const header = new Uint8Array(REQUEST_HEADER);
  const view = new DataView(header.buffer);
  view.setUint8(0, keyId);
  view.setUint16(1, KEM_X25519_HKDF_SHA256);
  view.setUint16(3, KDF_HKDF_SHA256);
  view.setUint16(5, AEAD_AES_128_GCM);
  return header;
}

/** HPKE's `info` for a request: the label, a zero byte, the header. */
export function requestInfo(header: Uint8Array): Uint8Array {
  return concatBytes(new TextEncoder().encode(REQUEST_LABEL), Uint8Array.of(0), header);
}
