// The v4 bridge (docs/migrating-from-v4.md): `sbkit serve --upstream` in front of a server that is asked
// only over v5 answers every v4 request form its clients send (docs/api.md §3): the Update API as a JSON
// POST, a binary POST and the `$req` GET with X-HTTP-Method-Override, fullHashes:find, the Lookup API's
// threatMatches:find, threatLists and the encoded GET forms. Both servers are the built CLI on loopback;
// a forwarder between them records every request that reaches the upstream, none of which may be v4.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { decodeV4RiceHashes, prefixesToBytes } from '../../src/codec/index.ts';
import * as v4 from '../../src/proto/v4.ts';
import { expressionHash } from '../../src/url/hash.ts';
import { EXIT } from '../../src/cli/io.ts';
import { run } from './run.ts';
import { serve, stopStarted } from './serve-process.ts';
import { type RecordingForwarder, recordingForwarder } from '../support/recording-forwarder.ts';

const PHISHING = 'http://testsafebrowsing.appspot.com/s/phishing.html';
const MALWARE = 'http://testsafebrowsing.appspot.com/s/malware.html';
const UNLISTED = 'http://example.com/';
/** The full hash (hex) of each URL's own expression; the demo lists hold the first two. */
const HASH = {
  phishing: expressionHash('testsafebrowsing.appspot.com/s/phishing.html'),
  malware: expressionHash('testsafebrowsing.appspot.com/s/malware.html'),
  unlisted: expressionHash('example.com/'),
};
const prefixOf = (hex: string) => hex.slice(0, 8);
const base64Of = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

let dir: string;
let recorder: RecordingForwarder;
let proxyUrl: string;
/** Every request that reached the upstream, as `METHOD path?query`. */
let upstreamSaw: string[];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-v4-bridge-'));
  const upstream = await serve('--no-load-control');
  recorder = await recordingForwarder(new URL(upstream.url));
  upstreamSaw = recorder.seen;
  const recorderUrl = recorder.url;
  // A mirror's first update comes at a random moment within a minute (RF-2); a copy in --data is served
  // at once, so the proxy's lists are ready from its start. `sbkit update` fetches it, over v5.
  const prefill = await run(['update', '--server', recorderUrl, '--data', join(dir, 'mirror')]);
  assert.equal(prefill.status, EXIT.SAFE, prefill.err);
  const proxy = await serve('--no-load-control', '--upstream', recorderUrl, '--data', join(dir, 'mirror'));
  proxyUrl = proxy.url;
});
after(async () => {
  await stopStarted();
  await recorder.close();
  await rm(dir, { recursive: true, force: true });
});

/** A JSON POST to the proxy, as Google's npm client, gglsbl and WordPress plugins send it. */
async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`${proxyUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return (await response.json()) as T;
}

/** The proxy's binary answer to a GET, with its headers. */
async function getBinary(path: string, headers: Record<string, string> = {}): Promise<{ bytes: Uint8Array; headers: Headers }> {
  const response = await fetch(`${proxyUrl}${path}`, { headers });
  assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
  return { bytes: new Uint8Array(await response.arrayBuffer()), headers: response.headers };
}

/** The 4-byte prefixes (hex) a v4 list update adds, Rice-coded or raw. */
function addedPrefixes(update: v4.FetchThreatListUpdatesResponse_ListUpdateResponse): string[] {
  return update.additions.flatMap((set) => {
    const bytes = set.riceHashes === undefined ? set.rawHashes!.rawHashes : prefixesToBytes(decodeV4RiceHashes(set.riceHashes));
    return Buffer.from(bytes).toString('hex').match(/.{8}/g) ?? [];
  });
}

const RICE = { supportedCompressions: [v4.CompressionType.RICE] };
/** The Go reference client's DefaultThreatLists, as its binary requests name them. */
function goUpdateRequest(states: Uint8Array[] = []): v4.FetchThreatListUpdatesRequest {
  const triples = [v4.ThreatType.MALWARE, v4.ThreatType.SOCIAL_ENGINEERING, v4.ThreatType.UNWANTED_SOFTWARE];
  return create(v4.FetchThreatListUpdatesRequestSchema, {
    client: { clientId: 'GoSafeBrowser', clientVersion: '1.0.0' },
    listUpdateRequests: triples.map((threatType, i) => ({
      threatType,
      platformType: v4.PlatformType.ANY_PLATFORM,
      threatEntryType: v4.ThreatEntryType.URL,
      state: states[i] ?? new Uint8Array(),
      constraints: RICE,
    })),
  });
}

describe('sbkit serve --upstream, asked only over v5, answers v4 clients', { timeout: 30_000 }, () => {
  it('threatListUpdates:fetch as a JSON POST: raw prefixes, a state and a checksum per list, the minimum wait', async () => {
    interface JsonUpdate {
      threatType: string;
      additions?: { rawHashes: { prefixSize: number; rawHashes: string } }[];
      newClientState: string;
      checksum: { sha256: string };
    }
    const answer = await postJson<{ listUpdateResponses: JsonUpdate[]; minimumWaitDuration: string }>('/v4/threatListUpdates:fetch', {
      client: { clientId: 'gglsbl-like', clientVersion: '1.0' },
      listUpdateRequests: ['SOCIAL_ENGINEERING', 'MALWARE'].map((threatType) => ({
        threatType,
        platformType: 'ANY_PLATFORM',
        threatEntryType: 'URL',
        state: '',
        constraints: { supportedCompressions: ['RAW'] },
      })),
    });
    const [se = [], mw = []] = answer.listUpdateResponses.map(
      (list) =>
        Buffer.from(list.additions?.[0]?.rawHashes.rawHashes ?? '', 'base64')
          .toString('hex')
          .match(/.{8}/g) ?? ([] as string[]),
    );
    assert.deepEqual(
      answer.listUpdateResponses.map((l) => l.threatType),
      ['SOCIAL_ENGINEERING', 'MALWARE'],
    );
    assert.ok(se.includes(prefixOf(HASH.phishing)), `se-4b holds the phishing page: ${se.join(' ')}`);
    assert.ok(mw.includes(prefixOf(HASH.malware)), `mw-4b holds the malware page: ${mw.join(' ')}`);
    assert.ok(!se.includes(prefixOf(HASH.unlisted)) && !mw.includes(prefixOf(HASH.unlisted)));
    assert.ok(answer.listUpdateResponses.every((l) => l.newClientState !== '' && l.checksum.sha256 !== ''));
    assert.equal(answer.minimumWaitDuration, '1800s');
  });

  it("threatListUpdates:fetch as the Go client's binary POST, then from the states it got (nothing new) and from Google's (all anew)", async () => {
    const post = async (request: v4.FetchThreatListUpdatesRequest) => {
      const response = await fetch(`${proxyUrl}/v4/threatListUpdates:fetch?key=any&alt=proto`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: toBinary(v4.FetchThreatListUpdatesRequestSchema, request),
      });
      assert.equal(response.status, 200);
      return fromBinary(v4.FetchThreatListUpdatesResponseSchema, new Uint8Array(await response.arrayBuffer()));
    };
    const first = await post(goUpdateRequest());
    const [mw, se] = first.listUpdateResponses;
    assert.equal(first.listUpdateResponses.length, 3, 'one answer per list asked, as the Go client requires');
    assert.ok(addedPrefixes(mw!).includes(prefixOf(HASH.malware)));
    assert.ok(addedPrefixes(se!).includes(prefixOf(HASH.phishing)));
    const again = await post(goUpdateRequest(first.listUpdateResponses.map((l) => l.newClientState)));
    assert.deepEqual(
      again.listUpdateResponses.map((l) => [l.responseType, l.additions.length, Buffer.from(l.checksum!.sha256).toString('hex')]),
      first.listUpdateResponses.map((l) => [
        v4.FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType.PARTIAL_UPDATE,
        0,
        Buffer.from(l.checksum!.sha256).toString('hex'),
      ]),
    );
    // A state from Google's server (a client moved over) names no version of the proxy: a full update.
    const moved = await post(goUpdateRequest(first.listUpdateResponses.map(() => new TextEncoder().encode('Google state'))));
    assert.deepEqual(
      moved.listUpdateResponses.map((l) => [l.responseType, l.newClientState]),
      first.listUpdateResponses.map((l) => [
        v4.FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType.FULL_UPDATE,
        l.newClientState,
      ]),
    );
  });

  it("threatListUpdates:fetch as Firefox's GET: $req, $ct, X-HTTP-Method-Override; browsers' numbers echoed", async () => {
    // Firefox's google4 provider on Linux: social engineering as its internal 5, malicious binaries as 7.
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      client: { clientId: 'navclient-auto-ffox', clientVersion: '153.0' },
      listUpdateRequests: [v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL, v4.ThreatType.MALWARE, v4.ThreatType.MALICIOUS_BINARY].map(
        (threatType) => ({ threatType, platformType: v4.PlatformType.LINUX, threatEntryType: v4.ThreatEntryType.URL, constraints: RICE }),
      ),
    });
    const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url');
    const { bytes, headers } = await getBinary(
      `/v4/threatListUpdates:fetch?$ct=application/x-protobuf&key=any&$httpMethod=POST&$req=${req}`,
      { 'x-http-method-override': 'POST' },
    );
    const answer = fromBinary(v4.FetchThreatListUpdatesResponseSchema, bytes);
    assert.deepEqual(
      answer.listUpdateResponses.map((l) => [l.threatType, l.platformType]),
      request.listUpdateRequests.map((l) => [l.threatType, l.platformType]),
    );
    const [se, mw, binaries] = answer.listUpdateResponses;
    assert.ok(addedPrefixes(se!).includes(prefixOf(HASH.phishing)));
    assert.ok(addedPrefixes(mw!).includes(prefixOf(HASH.malware)));
    // The proxy mirrors no malicious-binary list: Firefox gets an empty one with a state, never an error.
    assert.deepEqual([binaries!.additions.length, binaries!.newClientState.length > 0], [0, true]);
    assert.ok(headers.get('etag'), 'a GET list answer carries an ETag for caches');
  });

  it('threatListUpdates:fetch as /v4/encodedUpdates/{request}', async () => {
    const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, goUpdateRequest())).toString('base64url');
    const answer = fromBinary(v4.FetchThreatListUpdatesResponseSchema, (await getBinary(`/v4/encodedUpdates/${req}`)).bytes);
    assert.ok(addedPrefixes(answer.listUpdateResponses[1]!).includes(prefixOf(HASH.phishing)));
  });

  it('fullHashes:find as a JSON POST: the listed hash found, the unlisted one not', async () => {
    const answer = await postJson<{ matches?: { threatType: string; threat: { hash: string } }[]; negativeCacheDuration: string }>(
      '/v4/fullHashes:find',
      {
        client: { clientId: 'npm-like', clientVersion: '1.0' },
        threatInfo: {
          threatTypes: ['SOCIAL_ENGINEERING', 'MALWARE'],
          platformTypes: ['ANY_PLATFORM'],
          threatEntryTypes: ['URL'],
          threatEntries: [HASH.phishing, HASH.unlisted].map((hash) => ({ hash: base64Of(prefixOf(hash)) })),
        },
      },
    );
    const found = (answer.matches ?? []).map((m) => [m.threatType, Buffer.from(m.threat.hash, 'base64').toString('hex')]);
    assert.deepEqual(
      found.filter(([, hash]) => hash === HASH.phishing),
      [['SOCIAL_ENGINEERING', HASH.phishing]],
    );
    assert.ok(!found.some(([, hash]) => hash === HASH.unlisted), 'example.com/ is in no list');
    assert.match(answer.negativeCacheDuration, /^\d+(\.\d+)?s$/);
  });

  it("fullHashes:find as Chromium's $req GET and as /v4/encodedFullHashes/{request}", async () => {
    const request = create(v4.FindFullHashesRequestSchema, {
      client: { clientId: 'chromium', clientVersion: '156.0.7000.0' },
      threatInfo: {
        threatTypes: [v4.ThreatType.MALWARE, v4.ThreatType.SOCIAL_ENGINEERING_INTERNAL],
        platformTypes: [v4.PlatformType.LINUX],
        threatEntryTypes: [v4.ThreatEntryType.URL],
        threatEntries: [HASH.malware, HASH.unlisted].map((hash) => ({ hash: Buffer.from(prefixOf(hash), 'hex') })),
      },
    });
    const req = Buffer.from(toBinary(v4.FindFullHashesRequestSchema, request)).toString('base64url');
    for (const [path, headers] of [
      [`/v4/fullHashes:find?$req=${req}&$ct=application/x-protobuf&key=any`, { 'x-http-method-override': 'POST' }],
      [`/v4/encodedFullHashes/${req}`, {}],
    ] as const) {
      const answer = fromBinary(v4.FindFullHashesResponseSchema, (await getBinary(path, headers)).bytes);
      assert.deepEqual(
        answer.matches.map((m) => [m.threatType, Buffer.from(m.threat!.hash).toString('hex')]),
        [[v4.ThreatType.MALWARE, HASH.malware]],
        path,
      );
    }
  });

  it('threatMatches:find (the Lookup API): the listed URLs with their threat types, the unlisted one not', async () => {
    const answer = await postJson<{ matches?: { threatType: string; threat: { url: string } }[] }>('/v4/threatMatches:find', {
      client: { clientId: 'wordpress-like', clientVersion: '1.0' },
      threatInfo: {
        threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE', 'POTENTIALLY_HARMFUL_APPLICATION'],
        platformTypes: ['ANY_PLATFORM'],
        threatEntryTypes: ['URL'],
        threatEntries: [PHISHING, MALWARE, UNLISTED].map((url) => ({ url })),
      },
    });
    assert.deepEqual((answer.matches ?? []).map((m) => `${m.threat.url} ${m.threatType}`).sort(), [
      `${MALWARE} MALWARE`,
      `${PHISHING} SOCIAL_ENGINEERING`,
    ]);
  });

  it('threatLists names the triples of the mirrored lists', async () => {
    const response = await fetch(`${proxyUrl}/v4/threatLists?alt=json`);
    const { threatLists } = (await response.json()) as { threatLists: { threatType: string; platformType: string }[] };
    for (const triple of ['SOCIAL_ENGINEERING ANY_PLATFORM', 'MALWARE ANY_PLATFORM', 'UNWANTED_SOFTWARE ANY_PLATFORM'])
      assert.ok(threatLists.map((l) => `${l.threatType} ${l.platformType}`).includes(triple), triple);
  });

  it('while the upstream was asked only over v5, for lists and for searches', () => {
    assert.ok(upstreamSaw.length > 0, 'the recorder is in the path');
    assert.deepEqual(
      upstreamSaw.filter((line) => !/^GET \/v5\//.test(line)),
      [],
    );
    assert.ok(
      upstreamSaw.some((line) => line.startsWith('GET /v5/hashes:search')),
      upstreamSaw.join('\n'),
    );
  });
});
