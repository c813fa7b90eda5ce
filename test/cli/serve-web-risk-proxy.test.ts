// `sbkit serve --upstream URL --upstream-protocol webrisk` in front of a second sbkit speaking Web Risk:
// the proxy mirrors the three Web Risk lists through computeDiff and answers Google's own Web Risk client
// (@google-cloud/web-risk, REST mode) and v5 and v4 clients from them. A forwarder between the two
// records what reaches the upstream: Web Risk requests only, and a hashes:search only for a prefix that
// the mirrored lists hold (Web Risk's lists are its whole database; listed-searches.ts).

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import webrisk from '@google-cloud/web-risk';
import { decodeV4RiceHashes } from '../../src/codec/index.ts';
import { EXIT } from '../../src/cli/io.ts';
import { expressionHash, expressionHashString } from '../../src/url/hash.ts';
import { type RecordingForwarder, recordingForwarder } from '../support/recording-forwarder.ts';
import { bytesOf, riceOf, sha256Of } from '../support/web-risk-answers.ts';
import { run } from './run.ts';
import { serve, stopStarted } from './serve-process.ts';

const { ThreatType, CompressionType } = webrisk.protos.google.cloud.webrisk.v1;
/** In the demo lists: mw-4b, Web Risk's MALWARE. */
const MALWARE = 'http://testsafebrowsing.appspot.com/s/malware.html';
const UNLISTED = 'http://example.com/';

let dir: string;
let recorder: RecordingForwarder;
let proxyUrl: string;
let client: InstanceType<typeof webrisk.WebRiskServiceClient>;

/** The upstream's hashes:search calls recorded since `from`. */
const searchesSince = (from: number) => recorder.seen.slice(from).filter((line) => line.startsWith('GET /v1/hashes:search'));

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-web-risk-proxy-'));
  const upstream = await serve('--no-load-control');
  recorder = await recordingForwarder(new URL(upstream.url));
  // A mirror's first update comes within a minute (RF-2); a copy in --data is served at once.
  const prefill = await run(['update', '--protocol', 'webrisk', '--server', recorder.url, '--data', join(dir, 'mirror')]);
  assert.equal(prefill.status, EXIT.SAFE, prefill.err);
  const proxy = await serve(
    '--no-load-control',
    '--upstream',
    recorder.url,
    '--upstream-protocol',
    'webrisk',
    '--data',
    join(dir, 'mirror'),
  );
  proxyUrl = proxy.url;
  const port = Number(new URL(proxyUrl).port);
  client = new webrisk.WebRiskServiceClient({ fallback: true, protocol: 'http', apiEndpoint: '127.0.0.1', port, apiKey: 'any-key' });
});
after(async () => {
  await client.close();
  await stopStarted();
  await recorder.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sbkit serve --upstream-protocol webrisk, in front of a server speaking Web Risk', { timeout: 30_000 }, () => {
  it("answers Google's Web Risk client: searchUris for a listed URL asks the upstream once, for an unlisted one not at all", async () => {
    const from = recorder.seen.length;
    const [listed] = await client.searchUris({ uri: MALWARE, threatTypes: [ThreatType.MALWARE, ThreatType.SOCIAL_ENGINEERING] });
    assert.deepEqual(listed.threat?.threatTypes, ['MALWARE']);
    assert.equal(searchesSince(from).length, 1, 'one prefix of its expressions is listed');
    const next = recorder.seen.length;
    const [unlisted] = await client.searchUris({ uri: UNLISTED, threatTypes: [ThreatType.MALWARE] });
    assert.equal(unlisted.threat ?? null, null);
    assert.deepEqual(searchesSince(next), [], 'no list holds a prefix of its expressions');
  });

  it('searchHashes: the full hash under a listed prefix, from the upstream; none under another, from the lists', async () => {
    const full = Buffer.from(expressionHashString('testsafebrowsing.appspot.com/s/malware.html'), 'latin1');
    const [found] = await client.searchHashes({ hashPrefix: full.subarray(0, 4), threatTypes: [ThreatType.MALWARE] });
    assert.deepEqual(
      (found.threats ?? []).map((threat) => bytesOf(threat.hash).toString('hex')),
      [full.toString('hex')],
    );
    const [none] = await client.searchHashes({ hashPrefix: Buffer.from([0, 0, 0, 1]), threatTypes: [ThreatType.MALWARE] });
    assert.deepEqual(none.threats ?? [], []);
    assert.ok(Number(none.negativeExpireTime?.seconds) * 1000 > Date.now());
  });

  it('computeThreatListDiff: the mirrored list in full, its checksum the one the client computes', async () => {
    const from = recorder.seen.length;
    const constraints = { maxDiffEntries: 0, maxDatabaseEntries: 0, supportedCompressions: [CompressionType.RICE] };
    const [reset] = await client.computeThreatListDiff({ threatType: ThreatType.MALWARE, constraints });
    assert.equal(reset.responseType, 'RESET');
    const held = [...decodeV4RiceHashes(riceOf(reset.additions?.riceHashes))];
    assert.ok(held.includes(Number.parseInt(expressionHash('testsafebrowsing.appspot.com/s/malware.html').slice(0, 8), 16)));
    assert.deepEqual(sha256Of(held), bytesOf(reset.checksum?.sha256));
    assert.deepEqual(
      recorder.seen.slice(from).filter((line) => line.includes('computeDiff')),
      [],
      'answered from the mirror, not passed on',
    );
  });

  it('answers v5 and v4 clients from the Web Risk lists too', async () => {
    const prefix = Buffer.from(expressionHash('testsafebrowsing.appspot.com/s/malware.html'), 'hex').subarray(0, 4);
    const v5 = await fetch(`${proxyUrl}/v5/hashes:search?hashPrefixes=${encodeURIComponent(prefix.toString('base64'))}&$alt=json`);
    assert.equal(v5.status, 200);
    const v5Answer = (await v5.json()) as { fullHashes?: { fullHashDetails: { threatType: string }[] }[] };
    assert.deepEqual(
      v5Answer.fullHashes?.map((hash) => hash.fullHashDetails.map((detail) => detail.threatType)),
      [['MALWARE']],
    );
    const v4 = await fetch(`${proxyUrl}/v4/threatMatches:find`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client: { clientId: 'wordpress-like', clientVersion: '1' },
        threatInfo: {
          threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING'],
          platformTypes: ['ANY_PLATFORM'],
          threatEntryTypes: ['URL'],
          threatEntries: [{ url: MALWARE }, { url: UNLISTED }],
        },
      }),
    });
    assert.equal(v4.status, 200);
    const v4Answer = (await v4.json()) as { matches?: { threatType: string; threat: { url: string } }[] };
    assert.deepEqual(
      v4Answer.matches?.map((match) => [match.threatType, match.threat.url]),
      [['MALWARE', MALWARE]],
    );
  });

  it('asked its upstream over Web Risk alone', () => {
    assert.ok(recorder.seen.length > 0, 'the recorder is in the path');
    assert.deepEqual(
      recorder.seen.filter((line) => !/^GET \/v1\/(threatLists:computeDiff|hashes:search)\?/.test(line)),
      [],
    );
  });
});
