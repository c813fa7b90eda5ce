// What the tests of client-lists-v4 and client-lists-v5 share: two servers on loopback, the demo set,
// which publishes every list sbkit knows, and an operator's with two lists only, which answers the rest
// empty; and the checks each real client makes of an answer before it keeps any list (the count and
// order of the lists, the names or triples echoed, a state and a checksum for each, the checksum of the
// hashes as decoded, the width a name states). What a server answers from is listAnswering's; that it
// is the right list is pinned by client-lists-v4's Chromium table, test/lists/client-lists.test.ts,
// test/lists/v4-lists.test.ts and docs/api.md's table (test/docs/client-lists.test.ts).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before } from 'node:test';
import { decodeV4RiceHashes, prefixesToBytes } from '../../src/codec/index.ts';
import { hashListUpdate } from '../../src/client/transport/transport-v5.ts';
import { CLIENT_LISTS, type ClientForm, type ClientList, listAnswering } from '../../src/lists/client-lists.ts';
import { type HashWidth, widthOfListName } from '../../src/lists/list-name.ts';
import type { V4List } from '../../src/lists/v4-lists.ts';
import * as v4 from '../../src/proto/v4.ts';
import type * as v5 from '../../src/proto/v5.ts';
import type { ListCatalog } from '../../src/server/catalog.ts';
import { createServer, type SafeBrowsingServer } from '../../src/server/http/server.ts';
import { HashList, hashBytes } from '../../src/store/hash-list.ts';
import { nodeSha256 } from '../../src/url/hash.ts';
import { catalogOf } from './api/fixtures.ts';
import { demoCatalog } from './fixture.ts';

export const KEY = 'client-lists-key';
const ResponseType = v4.FetchThreatListUpdatesResponse_ListUpdateResponse_ResponseType;

export interface Running {
  label: string;
  catalog: ListCatalog;
  server: SafeBrowsingServer;
  url: string;
}

/** The two servers, started before the file's tests and closed after them. */
export function runningServers(): Running[] {
  const servers: Running[] = [];
  before(async () => {
    const operator = catalogOf([
      { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], expressions: ['phishing.sbtest.example/'] },
      { name: 'mw-4b', threatTypes: ['MALWARE'], expressions: ['malware.sbtest.example/'] },
    ]);
    for (const [label, catalog] of [
      ['the demo set', demoCatalog()],
      ["an operator's se-4b and mw-4b", operator],
    ] as const) {
      const server = createServer({ catalog, apiKeys: [KEY], port: 0 });
      servers.push({ label, catalog, server, url: await server.listen() });
    }
  });
  after(async () => {
    for (const { server } of servers) await server.close();
  });
  return servers;
}

export const rows = (form: ClientForm) => CLIENT_LISTS.filter((row) => row.form === form);
export const alwaysAsked = (form: ClientForm) => rows(form).filter((row) => row.when === undefined);
export const tripleOf = (row: ClientList): V4List => {
  assert.ok('triple' in row.asked, `${row.clientName} is asked for by triple`);
  return row.asked.triple;
};
export const nameOf = (row: ClientList): string => {
  assert.ok('name' in row.asked, `${row.clientName} is asked for by name`);
  return row.asked.name;
};
export const tripleKey = (t: V4List) => `${t.threatType}/${t.platformType}/${t.threatEntryType}`;

/** The hashes a client must end up with for a list: the published list's, or none. */
export function expectedBytes(catalog: ListCatalog, row: ClientList): Buffer {
  const name = listAnswering(row.asked);
  const history = name === undefined ? undefined : catalog.get(name);
  return Buffer.from(history === undefined ? new Uint8Array(0) : hashBytes(history.current().served()));
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/**
 * A v4 answer for one list as Firefox, Chromium and the Go client read it: additions raw or Rice-coded,
 * each set of one prefix size, concatenated in sorted order; the checksum is the SHA-256 of that.
 */
function v4Hashes(answer: v4.FetchThreatListUpdatesResponse_ListUpdateResponse): Buffer {
  const sets = answer.additions.map((set) => {
    if (set.compressionType === v4.CompressionType.RICE) return Buffer.from(prefixesToBytes(decodeV4RiceHashes(set.riceHashes)));
    assert.equal(set.compressionType, v4.CompressionType.RAW);
    const { prefixSize, rawHashes } = set.rawHashes!;
    assert.ok(prefixSize >= 4 && prefixSize <= 32 && rawHashes.length % prefixSize === 0);
    return Buffer.from(rawHashes);
  });
  return Buffer.concat(sets);
}

/** The checks every v4 client makes of a threatListUpdates:fetch answer, and the hashes it keeps. */
export function checkV4Answer(
  response: v4.FetchThreatListUpdatesResponse,
  asked: readonly V4List[],
  expected: readonly Buffer[],
  context: string,
): void {
  // Go: a count that differs fails the whole update; Chromium and Firefox key each answer by its triple.
  assert.deepEqual(
    response.listUpdateResponses.map(tripleKey),
    asked.map(tripleKey),
    `${context}: one answer per triple, in order, echoed`,
  );
  response.listUpdateResponses.forEach((answer, i) => {
    const what = `${context}: ${tripleKey(answer)}`;
    // Go refuses any other response type; a full update carries no removals.
    assert.equal(answer.responseType, ResponseType.FULL_UPDATE, what);
    assert.equal(answer.removals.length, 0, what);
    // Firefox refuses an answer without state, Go one without checksum (docs/api.md §3 pitfall 4).
    assert.ok(answer.newClientState.length > 0, `${what}: a state`);
    const hashes = v4Hashes(answer);
    assert.deepEqual(Buffer.from(answer.checksum!.sha256), sha256(hashes), `${what}: the checksum of the hashes sent`);
    assert.deepEqual(hashes, expected[i], `${what}: the list's hashes`);
  });
  assertFirefoxKeepsWait(response.minimumWaitDuration?.seconds, context);
}

/** Firefox disregards a wait below 300 s and then waits 30 minutes (docs/api.md §3 pitfall 6), over v4 and v5 alike. */
function assertFirefoxKeepsWait(seconds: bigint | undefined, context: string): void {
  assert.ok(seconds !== undefined && seconds >= 300n, `${context}: a minimum wait Firefox keeps (${seconds} s)`);
}

/** `triple` as a client on `platform` asks for it: Firefox and Chromium name their own system. */
export function onPlatform(triple: V4List, platform: v4.PlatformType): V4List {
  return triple.platformType === v4.PlatformType.LINUX ? { ...triple, platformType: platform } : triple;
}

/** The checks a v5 client makes of a batchGet answer (Chromium's are the strictest), and the hashes kept. */
export function checkV5Answer(
  response: v5.BatchGetHashListsResponse,
  names: readonly string[],
  expected: readonly Buffer[],
  context: string,
) {
  // Chromium: as many lists as names, each under the very name asked; Firefox keeps none of a failed batch.
  assert.deepEqual(
    response.hashLists.map((list) => list.name),
    names,
    `${context}: every name, in order`,
  );
  response.hashLists.forEach((list, i) => {
    const what = `${context}: ${list.name}`;
    assert.ok(list.version.length > 0, `${what}: a version`);
    assert.equal(list.sha256Checksum.length, 32, `${what}: a checksum`);
    // Chromium refuses additions of another width than the name states.
    const width: HashWidth = widthOfListName(list.name) ?? widthOfListName(listAnswering({ name: list.name })!)!;
    const additionsWidth = { additionsFourBytes: 4, additionsEightBytes: 8, additionsSixteenBytes: 16, additionsThirtyTwoBytes: 32 };
    if (list.compressedAdditions.case !== undefined) assert.equal(additionsWidth[list.compressedAdditions.case], width, `${what}: width`);
    assertFirefoxKeepsWait(list.minimumWaitDuration?.seconds, what);
    // Applied to an empty list as a fresh client does, checksum verified.
    const applied = HashList.empty(list.name, width).applyUpdate(hashListUpdate(list, width, list.name, 1_000_000), nodeSha256);
    assert.deepEqual(Buffer.from(hashBytes(applied.sortedHashes())), expected[i], `${what}: the list's hashes`);
  });
}

export async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
}

export async function binary(response: Response): Promise<Uint8Array> {
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get('content-type'), 'application/x-protobuf');
  return new Uint8Array(await response.arrayBuffer());
}
