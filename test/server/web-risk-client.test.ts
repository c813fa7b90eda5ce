// Google's Web Risk client (@google-cloud/web-risk, its REST mode) against `sbkit serve` on loopback:
// searches for a listed and an unlisted URL, a RESET then a DIFF after the operator adds an entry,
// applied as a client applies it and checked against the checksum, and a submission the operator sees.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import webrisk from '@google-cloud/web-risk';
import { decodeV4RiceHashes, decodeV4RiceIndices } from '../../src/codec/index.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import type { Service } from '../../src/server/service.ts';
import { expressionHashString } from '../../src/url/hash.ts';
import { startConfiguredService } from './service-fixture.ts';
import { bytesOf, riceOf, sha256Of } from '../support/web-risk-answers.ts';

const KEY = 'web-risk-key';
const TOKEN = '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7';
const LISTED = 'http://malware.sbtest.example/';

const { ThreatType, CompressionType } = webrisk.protos.google.cloud.webrisk.v1;

let service: Service;
let client: InstanceType<typeof webrisk.WebRiskServiceClient>;

before(async () => {
  const config = parseServerConfig(
    {
      apiKeys: [KEY],
      adminToken: TOKEN,
      lists: [
        { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ entries: ['malware.sbtest.example/', 'second.sbtest.example/'] }] },
        { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['phishing.sbtest.example/'] }] },
      ],
    },
    '.',
  );
  service = await startConfiguredService(config, { loadControl: false });
  const port = Number(new URL(service.url).port);
  client = new webrisk.WebRiskServiceClient({ fallback: true, protocol: 'http', apiEndpoint: '127.0.0.1', port, apiKey: KEY });
});
after(async () => {
  await client.close();
  await service.close();
});

describe("Google's Web Risk client", () => {
  it('searchUris: a listed URL is MALWARE, an unlisted one has no threat', async () => {
    const [listed] = await client.searchUris({ uri: LISTED, threatTypes: [ThreatType.MALWARE, ThreatType.SOCIAL_ENGINEERING] });
    assert.deepEqual(listed.threat?.threatTypes, ['MALWARE']);
    assert.ok(Number(listed.threat?.expireTime?.seconds) * 1000 > Date.now());
    const [unlisted] = await client.searchUris({ uri: 'http://example.com/', threatTypes: [ThreatType.MALWARE] });
    assert.equal(unlisted.threat ?? null, null);
  });

  it('searchHashes: the full hash under a listed prefix, none under another', async () => {
    const full = Buffer.from(expressionHashString('malware.sbtest.example/'), 'latin1');
    const [found] = await client.searchHashes({ hashPrefix: full.subarray(0, 4), threatTypes: [ThreatType.MALWARE] });
    assert.equal(found.threats?.length, 1);
    const [threat] = found.threats ?? [];
    assert.deepEqual(bytesOf(threat?.hash), full);
    assert.deepEqual(threat?.threatTypes, ['MALWARE']);
    const [none] = await client.searchHashes({ hashPrefix: Buffer.from([0, 0, 0, 1]), threatTypes: [ThreatType.MALWARE] });
    assert.deepEqual(none.threats ?? [], []);
    assert.ok(none.negativeExpireTime?.seconds !== undefined);
  });

  it('computeThreatListDiff: RESET, then after an added and a removed entry a DIFF that leaves the checksum', async () => {
    const constraints = { maxDiffEntries: 1024, maxDatabaseEntries: 1024, supportedCompressions: [CompressionType.RICE] };
    const [reset] = await client.computeThreatListDiff({ threatType: ThreatType.MALWARE, constraints });
    assert.equal(reset.responseType, 'RESET');
    let held = [...decodeV4RiceHashes(riceOf(reset.additions?.riceHashes))];
    assert.equal(held.length, 2);
    assert.deepEqual(sha256Of(held), bytesOf(reset.checksum?.sha256));

    const edit = await fetch(`${service.url}/admin/lists/mw-4b/entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ add: ['third.sbtest.example/'], remove: ['second.sbtest.example/'] }),
    });
    assert.equal(edit.status, 200, await edit.text());

    const [diff] = await client.computeThreatListDiff({ threatType: ThreatType.MALWARE, versionToken: reset.newVersionToken, constraints });
    assert.equal(diff.responseType, 'DIFF');
    const removed = new Set(decodeV4RiceIndices(riceOf(diff.removals?.riceIndices)));
    held = [...held.filter((_, i) => !removed.has(i)), ...decodeV4RiceHashes(riceOf(diff.additions?.riceHashes))].sort((a, b) => a - b);
    assert.equal(held.length, 2);
    assert.deepEqual(sha256Of(held), bytesOf(diff.checksum?.sha256));
    assert.ok(Number(diff.recommendedNextDiff?.seconds) * 1000 > Date.now());
  });

  it('createSubmission: answered with no threat types, and shown to the operator', async () => {
    const [submission] = await client.createSubmission({ parent: 'projects/sbkit-test', submission: { uri: 'http://reported.example/' } });
    assert.equal(submission.uri, 'http://reported.example/');
    assert.deepEqual(submission.threatTypes ?? [], []);
    const admin = await fetch(`${service.url}/admin/submissions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const kept = (await admin.json()) as { submissions: { project: string; uri: string; client: string }[] };
    assert.deepEqual(
      kept.submissions.map(({ project, uri, client: from }) => [project, uri, from]),
      [['sbkit-test', 'http://reported.example/', '127.0.0.1']],
    );
  });
});
