import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import { safebrowsing } from '@googleapis/safebrowsing';
import * as v4 from '../../src/proto/v4.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { expressionHashString } from '../../src/url/hash.ts';
import { demoCatalog } from './fixture.ts';

// Google's generated npm client (`@googleapis/safebrowsing`) pointed at our server with `rootUrl`:
// every v5 and v4 method it has, in its own JSON dialect, unchanged.
const KEY = 'interop-key';
const PHISHING = 'testsafebrowsing.appspot.com/s/phishing.html';
const phishingHash = Buffer.from(expressionHashString(PHISHING), 'latin1');

let server: SafeBrowsingServer;
let rootUrl: string;

before(async () => {
  server = createServer({ catalog: demoCatalog(), apiKeys: [KEY], port: 0 });
  rootUrl = `${await server.listen()}/`;
});
after(async () => {
  await server.close();
});

describe("Google's npm client, v5", () => {
  const client = () => safebrowsing({ version: 'v5', rootUrl, auth: KEY });

  it('hashes.search finds the test page', async () => {
    const { data } = await client().hashes.search({ hashPrefixes: [phishingHash.subarray(0, 4).toString('base64')] });
    assert.equal(data.fullHashes?.[0]?.fullHash, phishingHash.toString('base64'));
    assert.equal(data.fullHashes?.[0]?.fullHashDetails?.[0]?.threatType, 'SOCIAL_ENGINEERING');
    assert.equal(data.cacheDuration, '300s');
  });

  it('hashList.get, then again from its version', async () => {
    const first = (await client().hashList.get({ name: 'se-4b', 'sizeConstraints.maxUpdateEntries': 1024 })).data;
    assert.ok(first.version && first.sha256Checksum && first.additionsFourBytes);
    assert.equal(first.partialUpdate ?? false, false);
    const again = (await client().hashList.get({ name: 'se', version: first.version })).data;
    assert.equal(again.partialUpdate, true);
    assert.equal(again.sha256Checksum, first.sha256Checksum);
  });

  it('hashLists.batchGet with an empty and a known version', async () => {
    const se = (await client().hashList.get({ name: 'se-4b' })).data;
    const { data } = await client().hashLists.batchGet({ names: ['mw-4b', 'se-4b'], version: ['', se.version!] });
    assert.deepEqual(
      data.hashLists?.map((l) => [l.name, l.partialUpdate ?? false]),
      [
        ['mw-4b', false],
        ['se-4b', true],
      ],
    );
  });

  it('hashLists.list pages through the lists', async () => {
    const { data } = await client().hashLists.list({ pageSize: 10 });
    assert.ok((data.hashLists ?? []).some((l) => l.name === 'gc-32b' && l.metadata?.hashLength === 'THIRTY_TWO_BYTES'));
  });

  it('urls.search', async () => {
    const { data } = await client().urls.search({ urls: [`http://${PHISHING}`, 'http://example.com/'] });
    assert.deepEqual(data.threats, [{ url: `http://${PHISHING}`, threatTypes: ['SOCIAL_ENGINEERING'] }]);
  });

  it('is refused without a valid key, as Google refuses it', async () => {
    await assert.rejects(
      safebrowsing({ version: 'v5', rootUrl, auth: 'wrong' }).hashes.search({ hashPrefixes: ['AAAAAA=='] }),
      (err: { status?: number }) => err.status === 400,
    );
  });
});

describe("Google's npm client, v4", () => {
  const client = () => safebrowsing({ version: 'v4', rootUrl, auth: KEY });
  const threatInfo = (entries: object[]) => ({
    threatTypes: ['SOCIAL_ENGINEERING', 'MALWARE'],
    platformTypes: ['ANY_PLATFORM'],
    threatEntryTypes: ['URL'],
    threatEntries: entries,
  });

  it('threatListUpdates.fetch', async () => {
    const { data } = await client().threatListUpdates.fetch({
      requestBody: {
        client: { clientId: 'npm', clientVersion: '1' },
        listUpdateRequests: [
          {
            threatType: 'SOCIAL_ENGINEERING',
            platformType: 'ANY_PLATFORM',
            threatEntryType: 'URL',
            constraints: { supportedCompressions: ['RAW'] },
          },
        ],
      },
    });
    const list = data.listUpdateResponses?.[0];
    assert.equal(list?.responseType, 'FULL_UPDATE');
    assert.ok(list?.newClientState && list.checksum?.sha256);
    assert.ok((list?.additions?.[0]?.rawHashes?.rawHashes ?? '').length > 0);
  });

  it('fullHashes.find', async () => {
    const { data } = await client().fullHashes.find({
      requestBody: { client: { clientId: 'npm' }, threatInfo: threatInfo([{ hash: phishingHash.subarray(0, 4).toString('base64') }]) },
    });
    assert.equal(data.matches?.[0]?.threat?.hash, phishingHash.toString('base64'));
    assert.equal(data.matches?.[0]?.threatType, 'SOCIAL_ENGINEERING');
  });

  it('threatMatches.find', async () => {
    const { data } = await client().threatMatches.find({
      requestBody: { client: { clientId: 'npm' }, threatInfo: threatInfo([{ url: `http://${PHISHING}` }]) },
    });
    assert.equal(data.matches?.[0]?.threat?.url, `http://${PHISHING}`);
  });

  it('threatLists.list', async () => {
    const { data } = await client().threatLists.list();
    assert.ok((data.threatLists ?? []).some((l) => l.threatType === 'MALWARE'));
  });

  it('encodedUpdates.get and encodedFullHashes.get', async () => {
    const update = create(v4.FetchThreatListUpdatesRequestSchema, {
      listUpdateRequests: [{ threatType: 1, platformType: 6, threatEntryType: 1 }],
    });
    const updates = await client().encodedUpdates.get({
      encodedRequest: Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, update)).toString('base64url'),
      clientId: 'npm',
      clientVersion: '1',
    });
    assert.equal(updates.data.listUpdateResponses?.[0]?.threatType, 'MALWARE');
    const find = create(v4.FindFullHashesRequestSchema, {
      threatInfo: { threatTypes: [2], platformTypes: [6], threatEntries: [{ hash: phishingHash.subarray(0, 4) }] },
    });
    const hashes = await client().encodedFullHashes.get({
      encodedRequest: Buffer.from(toBinary(v4.FindFullHashesRequestSchema, find)).toString('base64url'),
    });
    assert.equal(hashes.data.matches?.[0]?.threat?.hash, phishingHash.toString('base64'));
  });

  it('threatHits.create is acknowledged', async () => {
    const { status } = await client().threatHits.create({
      requestBody: { threatType: 'MALWARE', platformType: 'ANY_PLATFORM', entry: { url: 'http://x.example/' } },
    });
    assert.equal(status, 200);
  });
});
