// A small Web Risk server for client tests, written from webrisk.proto rather than from sbkit's own
// request decoding: real HTTP on loopback, the query string read as Google's REST front end takes it
// (JSON field names, enums by number, bytes as base64 or base64url), answers in JSON by the generated
// schemas' toJsonString, as webrisk.googleapis.com sends them.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { create, toJsonString } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { encodeV4RiceHashes, encodeV4RiceIndices } from '../../src/codec/index.ts';
import {
  type ComputeThreatListDiffResponse,
  ComputeThreatListDiffResponse_ResponseType as ResponseType,
  ComputeThreatListDiffResponseSchema,
  type RiceDeltaEncoding,
  type SearchHashesResponse,
  SearchHashesResponseSchema,
} from '../../src/proto/webrisk.ts';
import { checksumOf } from '../../src/store/hash-list.ts';
import { nodeSha256 } from '../../src/url/hash.ts';

/** One request as the server read it. */
export interface WebRiskCall {
  /** `computeDiff` or `search`. */
  method: 'computeDiff' | 'search';
  params: URLSearchParams;
  /** computeDiff: the threat type asked for, by number. */
  threatType: number;
  /** computeDiff: the version token sent, empty for none. */
  versionToken: Buffer;
  /** search: the one prefix asked about. */
  hashPrefix: Buffer;
  /** search: the threat types asked about, by number. */
  threatTypes: number[];
}

/** What the script answers: a message, or any other status. */
export type WebRiskAnswer = ComputeThreatListDiffResponse | SearchHashesResponse | { status: number };

export interface FakeWebRisk {
  url: string;
  calls: WebRiskCall[];
  /** Requests under way at most, at any moment. */
  maxInFlight: number;
  /** Exceptions the script threw; tests check it stays empty. */
  scriptErrors: unknown[];
  close(): Promise<void>;
}

/** Bytes of a query parameter, as Google takes them: base64 or base64url, padded or not. */
function bytesOf(value: string | null): Buffer {
  return Buffer.from((value ?? '').replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

export async function startFakeWebRisk(script: (call: WebRiskCall) => WebRiskAnswer | Promise<WebRiskAnswer>): Promise<FakeWebRisk> {
  const fake: FakeWebRisk = { url: '', calls: [], maxInFlight: 0, scriptErrors: [], close: () => Promise.resolve() };
  let inFlight = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method =
      url.pathname === '/v1/threatLists:computeDiff' ? 'computeDiff' : url.pathname === '/v1/hashes:search' ? 'search' : undefined;
    if (req.method !== 'GET' || method === undefined || url.searchParams.get('alt') !== 'json') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"status":"NOT_FOUND"}}');
      return;
    }
    const params = url.searchParams;
    const call: WebRiskCall = {
      method,
      params,
      threatType: Number(params.get('threatType') ?? 0),
      versionToken: bytesOf(params.get('versionToken')),
      hashPrefix: bytesOf(params.get('hashPrefix')),
      threatTypes: params.getAll('threatTypes').map(Number),
    };
    fake.calls.push(call);
    fake.maxInFlight = Math.max(fake.maxInFlight, ++inFlight);
    res.on('close', () => inFlight--);
    void (async () => {
      try {
        const answer = await script(call);
        if ('status' in answer) {
          res.writeHead(answer.status, { 'content-type': 'text/plain' }).end();
          return;
        }
        const body =
          answer.$typeName === 'google.cloud.webrisk.v1.SearchHashesResponse'
            ? toJsonString(SearchHashesResponseSchema, answer)
            : toJsonString(ComputeThreatListDiffResponseSchema, answer);
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(body);
      } catch (err) {
        // A failed assertion in the script, or an answer JSON cannot carry: recorded, and answered so that nothing hangs.
        fake.scriptErrors.push(err);
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`script failed: ${String(err)}`);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/** A v4-form Rice encoding as Web Risk writes it (`entry_count` for `num_entries`); undefined for none. */
function webRiskRice(encoded: { firstValue: bigint; riceParameter: number; numEntries: number; encodedData: Uint8Array } | undefined) {
  if (encoded === undefined) return undefined;
  const { firstValue, riceParameter, numEntries, encodedData } = encoded;
  return { firstValue, riceParameter, entryCount: numEntries, encodedData } satisfies Omit<RiceDeltaEncoding, '$typeName'>;
}

export interface DiffOptions {
  /** DIFF (a partial update) rather than RESET. */
  diff?: boolean;
  /** Indices into the sorted old list, sent Rice-coded (or raw, with `rawRemovals`). */
  removals?: number[];
  rawRemovals?: boolean;
  /** Additions sent as raw 4-byte prefixes rather than Rice-coded. */
  rawAdditions?: boolean;
  /** The list after the diff, for the checksum; by default the additions. */
  after?: Uint32Array;
  /** A checksum other than the right one. */
  checksum?: Uint8Array;
  /** recommended_next_diff, in ms since the epoch. */
  nextDiffAt?: number;
}

/** A computeDiff answer adding sorted 4-byte `prefixes` (big-endian integers), with the version token `version`. */
export function diffAnswer(version: string, prefixes: Uint32Array, options: DiffOptions = {}): ComputeThreatListDiffResponse {
  const rawBytes = Buffer.alloc(prefixes.length * 4);
  prefixes.forEach((prefix, i) => rawBytes.writeUInt32BE(prefix, i * 4));
  const removals = Uint32Array.from(options.removals ?? []);
  return create(ComputeThreatListDiffResponseSchema, {
    responseType: options.diff === true ? ResponseType.DIFF : ResponseType.RESET,
    additions:
      options.rawAdditions === true
        ? { rawHashes: [{ prefixSize: 4, rawHashes: rawBytes }] }
        : { riceHashes: webRiskRice(encodeV4RiceHashes(prefixes)) },
    removals:
      removals.length === 0
        ? undefined
        : options.rawRemovals === true
          ? { rawIndices: { indices: [...removals] } }
          : { riceIndices: webRiskRice(encodeV4RiceIndices(removals)) },
    newVersionToken: Buffer.from(version),
    checksum: { sha256: options.checksum ?? checksumOf({ width: 4, values: options.after ?? prefixes }, nodeSha256) },
    recommendedNextDiff: options.nextDiffAt === undefined ? undefined : timestampFromMs(options.nextDiffAt),
  });
}

/** A hashes:search answer: full hashes (byte strings) of threat types, kept until `expiresAt`, the rest of the prefix until `negativeUntil`. */
export function searchAnswer(
  threats: { hash: string; threatTypes: number[] }[],
  expiresAt: number,
  negativeUntil = expiresAt,
): SearchHashesResponse {
  return create(SearchHashesResponseSchema, {
    threats: threats.map((t) => ({
      hash: Buffer.from(t.hash, 'latin1'),
      threatTypes: t.threatTypes,
      expireTime: timestampFromMs(expiresAt),
    })),
    negativeExpireTime: timestampFromMs(negativeUntil),
  });
}
