// The v4 clients' list requests, each as the client sends it, answered in the way it tolerates
// (docs/api.md "The lists each client asks for"; client-lists-fixture.ts has the checks): Firefox's
// google4 provider, Chromium, and the Go reference client.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { listAnswering } from '../../src/lists/client-lists.ts';
import type { V4List } from '../../src/lists/v4-lists.ts';
import * as v4 from '../../src/proto/v4.ts';
import { lengthField, varintField } from '../proto/hand-built.ts';
import {
  alwaysAsked,
  binary,
  checkV4Answer,
  expectedBytes,
  get,
  KEY,
  onPlatform,
  rows,
  runningServers,
  tripleKey,
  tripleOf,
} from './client-lists-fixture.ts';

const { ThreatType: T, PlatformType: P, ThreatEntryType: E } = v4;
const ResponseType = v4.FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType;
const SERVERS = runningServers();
/** The systems Firefox and Chromium run on, each asking with its own platform. */
const DESKTOPS = [P.LINUX, P.WINDOWS, P.OSX];

/** A ListUpdateRequest as Firefox's proto2 encoder writes it, empty state left out (its capture, decoded). */
function firefoxListRequest({ threatType, platformType, threatEntryType }: V4List): number[] {
  const constraints = varintField(4, v4.CompressionType.RICE);
  return lengthField(3, [
    ...varintField(1, threatType),
    ...varintField(2, platformType),
    ...lengthField(4, constraints),
    ...varintField(5, threatEntryType),
  ]);
}

function firefoxFetch(lists: readonly V4List[]): string {
  const request = [...lengthField(1, lengthField(1, 'navclient-auto-ffox')), ...lists.flatMap(firefoxListRequest)];
  // base64url with padding, as Firefox sends it.
  const req = Buffer.from(request).toString('base64').replaceAll('+', '-').replaceAll('/', '_');
  return `/v4/threatListUpdates:fetch?$ct=application/x-protobuf&key=${KEY}&$httpMethod=POST&$req=${req}`;
}

describe('Firefox, google4 provider: threatListUpdates:fetch', () => {
  // Captured on Linux: goog-phish-proto, -malware-, -unwanted-, -badbinurl-, -downloadwhite-.
  const CAPTURED: V4List[] = [
    T.SOCIAL_ENGINEERING_INTERNAL,
    T.MALWARE,
    T.UNWANTED_SOFTWARE,
    T.MALICIOUS_BINARY,
    T.CSD_DOWNLOAD_ALLOWLIST,
  ].map((threatType) => ({ threatType, platformType: P.LINUX, threatEntryType: E.URL }));

  it('is what the table says Firefox always asks for, its request as captured', () => {
    assert.deepEqual(alwaysAsked('firefox-v4').map(tripleOf), CAPTURED);
    assert.ok(firefoxFetch(CAPTURED).includes('$req=ChUKE25hdmNsaWVudC1hdXRvLWZmb3gaCggFEAIiAiACKAEaCggBEAIi'));
  });

  it('is answered in full, every table and every optional one, by each server, on every desktop system', async () => {
    for (const platform of DESKTOPS) {
      for (const forms of [alwaysAsked('firefox-v4'), rows('firefox-v4')]) {
        for (const { url, catalog, label } of SERVERS) {
          const asked = forms.map((row) => onPlatform(tripleOf(row), platform));
          const response = await get(url, firefoxFetch(asked), { 'x-http-method-override': 'POST', accept: '*/*' });
          const message = fromBinary(v4.FetchThreatListUpdatesResponseSchema, await binary(response));
          checkV4Answer(
            message,
            asked,
            forms.map((row) => expectedBytes(catalog, row)),
            `${label}, ${P[platform]}`,
          );
        }
      }
    }
  });

  it('gets the download allowlist from csdda-32b, in 32-byte hashes', async () => {
    const { url } = SERVERS[0]!;
    const message = fromBinary(
      v4.FetchThreatListUpdatesResponseSchema,
      await binary(await get(url, firefoxFetch(CAPTURED), { 'x-http-method-override': 'POST' })),
    );
    const allowlist = message.listUpdateResponses[4]!;
    assert.equal(allowlist.additions[0]?.rawHashes?.prefixSize, 32);
    assert.equal(message.listUpdateResponses[0]!.additions[0]?.compressionType, v4.CompressionType.RICE);
  });
});

/** Chromium's request: its lists, RICE, its ChromeClientInfo, as `$req` in a GET with the override. */
function chromiumFetch(lists: readonly V4List[]): string {
  const request = create(v4.FetchThreatListUpdatesRequestSchema, {
    client: { clientId: 'chromium', clientVersion: '156.0.0.0' },
    listUpdateRequests: lists.map((list) => ({ ...list, constraints: { supportedCompressions: [v4.CompressionType.RICE] } })),
    chromeClientInfo: {},
  });
  const req = Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url');
  return `/v4/threatListUpdates:fetch?$req=${req}&$ct=application/x-protobuf&key=${KEY}`;
}

describe('Chromium: threatListUpdates:fetch', () => {
  // Chromium's stores (v4_local_database_manager.cc GetListInfos) on Linux, API abuse left out as it is
  // never synced, each with the list that answers it: Chromium's own v5 name for it where sbkit has that list.
  const STORES_AND_LISTS: [V4List, string | undefined][] = (
    [
      [T.SOCIAL_ENGINEERING_INTERNAL, P.LINUX, E.URL, 'se-4b'],
      [T.MALWARE, P.LINUX, E.URL, 'mw-4b'],
      [T.UNWANTED_SOFTWARE, P.LINUX, E.URL, 'uws-4b'],
      [T.MALICIOUS_BINARY, P.LINUX, E.URL, 'mwb-4b'],
      [T.MALWARE, P.CHROME, E.CHROME_EXTENSION, undefined],
      [T.BILLING, P.LINUX, E.URL, undefined],
      [T.CSD_DOWNLOAD_ALLOWLIST, P.LINUX, E.URL, 'csdda-32b'],
      [T.CSD_ALLOWLIST, P.LINUX, E.URL, 'csda-32b'],
      [T.SUBRESOURCE_FILTER, P.LINUX, E.URL, undefined],
      [T.SUSPICIOUS, P.LINUX, E.URL, undefined],
      [T.HIGH_CONFIDENCE_ALLOWLIST, P.LINUX, E.URL, 'gc-32b'],
    ] as const
  ).map(([threatType, platformType, threatEntryType, list]) => [{ threatType, platformType, threatEntryType }, list]);
  const STORES = STORES_AND_LISTS.map(([triple]) => triple);

  it('is what the table says Chromium asks for, each answered from the list Chromium itself names for it', () => {
    assert.deepEqual(rows('chromium-v4').map(tripleOf), STORES);
    assert.deepEqual(
      rows('chromium-v4').map((row) => listAnswering(row.asked)),
      STORES_AND_LISTS.map(([, list]) => list),
    );
  });

  it('gets every store answered under its own triple, the ones sbkit has no list for empty, on every desktop system', async () => {
    for (const platform of DESKTOPS) {
      const stores = STORES.map((store) => onPlatform(store, platform));
      // The same list answers a store whatever the system: the platform names no other list.
      assert.deepEqual(
        stores.map((triple) => listAnswering({ triple })),
        STORES_AND_LISTS.map(([, list]) => list),
      );
      for (const { url, catalog, label } of SERVERS) {
        const response = await get(url, chromiumFetch(stores), { 'x-http-method-override': 'POST' });
        const message = fromBinary(v4.FetchThreatListUpdatesResponseSchema, await binary(response));
        checkV4Answer(
          message,
          stores,
          rows('chromium-v4').map((row) => expectedBytes(catalog, row)),
          `${label}, ${P[platform]}`,
        );
        // Chromium keys a store by the exact triple (an answer for any other is a bug check in its code).
        message.listUpdateResponses.forEach((answer, i) => {
          assert.deepEqual([answer.threatType, answer.platformType, answer.threatEntryType], Object.values(stores[i]!));
        });
      }
    }
  });

  it('applies the next update from its states: nothing changes', async () => {
    const { url } = SERVERS[0]!;
    const first = fromBinary(
      v4.FetchThreatListUpdatesResponseSchema,
      await binary(await get(url, chromiumFetch(STORES), { 'x-http-method-override': 'POST' })),
    );
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      listUpdateRequests: STORES.map((list, i) => ({
        ...list,
        state: first.listUpdateResponses[i]!.newClientState,
        constraints: { supportedCompressions: [v4.CompressionType.RICE] },
      })),
    });
    const again = fromBinary(
      v4.FetchThreatListUpdatesResponseSchema,
      await binary(
        await get(
          url,
          `/v4/threatListUpdates:fetch?$req=${Buffer.from(toBinary(v4.FetchThreatListUpdatesRequestSchema, request)).toString('base64url')}&$ct=application/x-protobuf&key=${KEY}`,
          {
            'x-http-method-override': 'POST',
          },
        ),
      ),
    );
    again.listUpdateResponses.forEach((answer, i) => {
      // Chromium processes an update only when the state changed; sbkit keeps it, with the same checksum.
      assert.deepEqual(answer.newClientState, first.listUpdateResponses[i]!.newClientState);
      assert.deepEqual(answer.checksum?.sha256, first.listUpdateResponses[i]!.checksum?.sha256);
      assert.equal(answer.additions.length, 0);
    });
  });
});

describe('the Go reference client: threatListUpdates:fetch', () => {
  // safebrowser.go DefaultThreatLists, which sblookup uses.
  const DEFAULT_THREAT_LISTS: V4List[] = [T.MALWARE, T.SOCIAL_ENGINEERING, T.UNWANTED_SOFTWARE].map((threatType) => ({
    threatType,
    platformType: P.ANY_PLATFORM,
    threatEntryType: E.URL,
  }));

  const fetchAs = async (url: string, lists: readonly V4List[], states: readonly Uint8Array[] = []) => {
    const request = create(v4.FetchThreatListUpdatesRequestSchema, {
      client: { clientId: 'GoSafeBrowser', clientVersion: '1.0.0' },
      listUpdateRequests: lists.map((list, i) => ({
        ...list,
        state: states[i] ?? new Uint8Array(0),
        constraints: { supportedCompressions: [v4.CompressionType.RAW, v4.CompressionType.RICE] },
      })),
    });
    const response = await fetch(`${url}/v4/threatListUpdates:fetch?alt=proto&key=${KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: toBinary(v4.FetchThreatListUpdatesRequestSchema, request),
      signal: AbortSignal.timeout(10_000),
    });
    return fromBinary(v4.FetchThreatListUpdatesResponseSchema, await binary(response));
  };

  it('is what the table says the Go client asks for by default', () => {
    assert.deepEqual(alwaysAsked('go-v4').map(tripleOf), DEFAULT_THREAT_LISTS);
  });

  it('gets its default and configured lists, then a partial update of nothing from their states', async () => {
    for (const { url, catalog, label } of SERVERS) {
      const asked = rows('go-v4').map(tripleOf);
      const first = await fetchAs(url, asked);
      checkV4Answer(
        first,
        asked,
        rows('go-v4').map((row) => expectedBytes(catalog, row)),
        label,
      );
      const again = await fetchAs(
        url,
        asked,
        first.listUpdateResponses.map((answer) => answer.newClientState),
      );
      again.listUpdateResponses.forEach((answer, i) => {
        // Go: a list it holds comes back as a partial update of nothing, one the server lacks as the same
        // empty full update; either way the checksum still verifies.
        const served = catalog.get(listAnswering(rows('go-v4')[i]!.asked)!) !== undefined;
        assert.equal(
          answer.responseType,
          served ? ResponseType.PARTIAL_UPDATE : ResponseType.FULL_UPDATE,
          `${label}: ${tripleKey(answer)}`,
        );
        assert.equal(answer.additions.length + answer.removals.length, 0);
        assert.deepEqual(answer.checksum?.sha256, first.listUpdateResponses[i]!.checksum?.sha256);
      });
    }
  });
});
