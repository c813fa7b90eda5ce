// @hpke/core's declarations name WebCrypto's types as globals (CryptoKey, KeyUsage, SubtleCrypto…),
// which TypeScript declares only in its DOM library. Node has the same objects in node:crypto's
// `webcrypto`; these aliases give them their global names without the rest of the DOM.
import type { webcrypto } from 'node:crypto';

declare global {
  type Crypto = webcrypto.Crypto;
  type CryptoKey = webcrypto.CryptoKey;
  type CryptoKeyPair = webcrypto.CryptoKeyPair;
  type HmacKeyGenParams = webcrypto.HmacKeyGenParams;
  type JsonWebKey = webcrypto.JsonWebKey;
  type KeyAlgorithm = webcrypto.KeyAlgorithm;
  type KeyUsage = webcrypto.KeyUsage;
  type SubtleCrypto = webcrypto.SubtleCrypto;
}
