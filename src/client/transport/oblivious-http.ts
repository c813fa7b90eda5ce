// Searches through an Oblivious HTTP relay (SB-2): each request is written as binary HTTP, encrypted
// to the gateway's key configuration, and posted to the relay; the relay learns who asks, the gateway
// what is asked, neither both. The key configuration comes from a URL (the gateway's /ohttp-keys),
// read once and again when the gateway says its key changed, a file (on Node), or bytes given up front.
// Runtime-neutral: the encapsulation is WebCrypto's (wire/ohttp/ohttp-client.ts), and the runtime hands in
// how to send a request and, on Node, how to read a file.

import { type BinaryHttpResponse, decodeBinaryHttpResponse, encodeBinaryHttpRequest, padded } from '../../wire/ohttp/binary-http.ts';
import type { OutgoingRequest } from '../../wire/rest/client-request.ts';
import type { WireResponse } from '../../wire/rest/client-response.ts';
import { decapsulateResponse, encapsulateRequest } from '../../wire/ohttp/ohttp-client.ts';
import { KEY_PROBLEM_TYPE, type KeyConfig, parseKeyConfigs } from '../../wire/ohttp/ohttp-keys.ts';
import { OhttpError } from '../../wire/wire-error.ts';
import type { HttpSettings } from './http.ts';
import type { Sender } from './rpc.ts';
import { ClientOptionError, TransportError } from '../client-errors.ts';
import type { Clock } from '../../time/clock.ts';

export interface ObliviousHttpOptions {
  /** The relay's URL, e.g. https://relay.example/ohttp-relay. */
  relay: string;
  /** The gateway's key configurations: a URL (`…/ohttp-keys`), a file (Node only), or the bytes themselves. */
  keys: string | Uint8Array;
}

/** Whether `keys` names a URL to fetch the configurations from, rather than a file. */
export function isKeysUrl(keys: string | Uint8Array): boolean {
  return typeof keys === 'string' && /^https?:\/\//.test(keys);
}

export class ObliviousHttp {
  private configs: KeyConfig[] | undefined;
  private configsExpireAt = Infinity;

  /**
   * `transmit` carries the requests to the relay and to the gateway's key URL; `clock` says when a
   * configuration read from a URL is old; `readKeyFile` reads a key file, where the runtime has files (Node).
   */
  constructor(
    private readonly options: ObliviousHttpOptions,
    private readonly transmit: Sender,
    private readonly clock: Clock,
    private readonly readKeyFile?: (path: string) => Promise<Uint8Array>,
  ) {}

  /**
   * Sends `request` through the relay and gives the gateway's answer to it, as if sent directly. Only
   * an encapsulated answer counts: anything else (the relay's or the gateway's own refusal) is a
   * TransportError, never read as the server's answer. When the gateway says the key is unknown (RFC
   * 9458 §5.3: its keys changed), the request is tried once more with the configuration read again.
   */
  async send(request: OutgoingRequest, settings: HttpSettings): Promise<WireResponse> {
    const target = new URL(request.url);
    // Padded (RFC 9292 §3.8), so that the relay cannot tell requests apart by their size.
    const inner = padded(
      encodeBinaryHttpRequest({
        method: request.method,
        scheme: target.protocol.replace(':', ''),
        authority: target.host,
        path: `${target.pathname}${target.search}`,
        headers: Object.entries(request.headers),
        content: request.body ?? new Uint8Array(0),
      }),
    );
    let answer = await this.exchange(inner, settings);
    if ('keyUnknown' in answer && answer.keyUnknown && this.refetchable()) {
      this.configs = undefined;
      answer = await this.exchange(inner, settings);
    }
    if (!('content' in answer)) throw new TransportError('network', `the relay answered HTTP ${answer.status}, not an encapsulated answer`);
    const header = (wanted: string) => answer.headers.find(([name]) => name === wanted)?.[1];
    return { httpStatus: answer.status, contentType: header('content-type'), body: answer.content, retryAfter: header('retry-after') };
  }

  /** One round through the relay: the gateway's decrypted answer, or the status of an outer refusal. */
  private async exchange(inner: Uint8Array, settings: HttpSettings): Promise<BinaryHttpResponse | { status: number; keyUnknown: boolean }> {
    const config = (await this.keyConfigs(settings))[0];
    if (config === undefined) throw new TransportError('network', 'the gateway publishes no key configuration this client can use');
    const { message, context } = await encapsulateRequest(config, inner);
    const outer = await this.transmit(
      { method: 'POST', url: this.options.relay, headers: { 'content-type': 'message/ohttp-req' }, body: message },
      { ...settings, userAgent: 'sbkit' },
    );
    if (outer.httpStatus !== 200 || outer.contentType?.split(';')[0]?.trim() !== 'message/ohttp-res')
      return { status: outer.httpStatus, keyUnknown: isKeyProblem(outer) };
    try {
      return decodeBinaryHttpResponse(await decapsulateResponse(context, outer.body));
    } catch (error) {
      throw new TransportError('network', `the gateway's encapsulated answer cannot be read: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** Keys read from a URL or a file can be read again; keys given as bytes cannot. */
  private refetchable(): boolean {
    return typeof this.options.keys === 'string';
  }

  private async keyConfigs(settings: HttpSettings): Promise<KeyConfig[]> {
    if (this.configs !== undefined && this.clock.now() < this.configsExpireAt) return this.configs;
    const { keys } = this.options;
    let bytes: Uint8Array;
    let expireAt = Infinity;
    if (typeof keys !== 'string') bytes = keys;
    else if (isKeysUrl(keys)) {
      const response = await this.transmit({ method: 'GET', url: keys, headers: {}, body: undefined }, settings);
      if (response.httpStatus !== 200)
        throw new TransportError('network', `the gateway's key configuration at ${keys} answered HTTP ${response.httpStatus}`);
      bytes = response.body;
      // Read again when the gateway says it may rotate (Cache-Control max-age), an hour at most.
      expireAt = this.clock.now() + Math.min(response.maxAgeSeconds ?? 3600, 3600) * 1000;
    } else if (this.readKeyFile !== undefined) {
      try {
        bytes = await this.readKeyFile(keys);
      } catch (error) {
        throw new TransportError('network', `cannot read the gateway's key configuration from ${keys}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    } else {
      throw new ClientOptionError(`ohttp.keys must be the gateway's http(s) URL or its bytes off Node, not a file: ${keys}`);
    }
    try {
      this.configs = parseKeyConfigs(bytes);
      // Only a configuration read in full replaces the lifetime: a failed reread is tried again next time.
      this.configsExpireAt = expireAt;
    } catch (error) {
      if (error instanceof OhttpError)
        throw new TransportError('network', `the gateway's key configuration cannot be read: ${error.message}`, { cause: error });
      throw error;
    }
    return this.configs;
  }
}

function isKeyProblem(answer: WireResponse): boolean {
  if (answer.httpStatus !== 400 || answer.contentType?.split(';')[0]?.trim().toLowerCase() !== 'application/problem+json') return false;
  try {
    return (JSON.parse(new TextDecoder().decode(answer.body)) as { type?: unknown }).type === KEY_PROBLEM_TYPE;
  } catch {
    return false;
  }
}
