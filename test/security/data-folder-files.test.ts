// S12: someone who may write the data folder (`sbkit serve --data DIR`) puts something in place of one
// of its files. A FIFO in place of a list's index: the start waited for a writer that never came, with
// no log line and no listener (none in 3 s here, 20 s in the report). A link to /dev/zero: the start read
// zeros (none in 3 s; the process still reading at 60 s, when it was killed). An older version's file with other hashes and its checksum made to
// match: restored and served, its clients given a diff from a base they do not hold. Now a file of the
// folder is read only when it is a regular file reached without a link, within a size bound, and the
// start fails at once naming the file and what to do; an older version is checked against the checksum
// its index keeps. Writing replaces a link put in a file's place rather than writing through it.
// Real services on loopback, as `sbkit serve --config … --data DIR` assembles them.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, mkdtemp, open, readdir, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import * as v5 from '../../src/proto/v5.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { type Service, startService } from '../../src/server/service.ts';

/** The old code's start never ended: each case must end well within this. */
const BOUNDED = { timeout: 5_000 };
const FIRST = ['a.example/', 'b.example/', 'c.example/'];
const SECOND = ['a.example/', 'b.example/', 'c.example/', 'd.example/'];

let root: string;
const services: Service[] = [];
const fifos: string[] = [];
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'sbkit-data-folder-'));
});
after(async () => {
  // An open that waits on a FIFO (the code before) is let go by a writer coming and going.
  for (const fifo of fifos) await (await open(fifo, constants.O_RDWR | constants.O_NONBLOCK)).close();
  for (const service of services.splice(0)) await service.close();
  await rm(root, { recursive: true, force: true });
});

/** A data folder and a configuration beside it. */
async function folder(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'data'), { recursive: true });
  return dir;
}

/** `sbkit serve --config <dir>/sbkit.json --data <dir>/data`, serving `entries` as list se-4b. */
async function serve(
  dir: string,
  entries: readonly string[],
  log: (line: string) => void = () => {},
  onListReport?: (report: { errors: string[] }) => void,
): Promise<Service> {
  const raw = { lists: [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries }] }] };
  const file = join(dir, 'sbkit.json');
  await writeFile(file, JSON.stringify(raw));
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config: parseServerConfig(raw, dir), dataDir: join(dir, 'data') },
    redis: undefined,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log,
    onListReport,
  });
  services.push(service);
  return service;
}

/** Serves FIRST then SECOND from `dir` and stops: the folder then keeps two versions. Resolves to the first's version token. */
async function twoVersions(dir: string): Promise<Uint8Array> {
  const first = await serve(dir, FIRST);
  const version = (await currentList(first.url)).version;
  await first.close();
  await (await serve(dir, SECOND)).close();
  return version;
}

async function currentList(base: string): Promise<v5.HashList> {
  const response = await fetch(`${base}/v5/hashLists:batchGet?names=se-4b`, { signal: AbortSignal.timeout(3000) });
  return fromBinary(v5.BatchGetHashListsResponseSchema, Buffer.from(await response.arrayBuffer())).hashLists[0]!;
}

async function hashListFrom(base: string, version: Uint8Array): Promise<v5.HashList> {
  const response = await fetch(`${base}/v5/hashList/se-4b?version=${Buffer.from(version).toString('base64url')}`, {
    signal: AbortSignal.timeout(3000),
  });
  return fromBinary(v5.HashListSchema, Buffer.from(await response.arrayBuffer()));
}

/** How starting on `dir` ended, within `ms`: `started`, `hung`, or the error's code and message. */
async function startOutcome(
  dir: string,
  ms: number,
): Promise<{ outcome: 'started' | 'hung' | 'refused'; code?: string; message?: string }> {
  const started = serve(dir, SECOND).then(
    () => ({ outcome: 'started' as const }),
    (error: { code?: string; message: string }) => ({ outcome: 'refused' as const, code: error.code, message: error.message }),
  );
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<{ outcome: 'hung' }>((resolve) => (timer = setTimeout(() => resolve({ outcome: 'hung' }), ms)));
  try {
    return await Promise.race([started, hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the files of the data folder (S12)', () => {
  it('refuses to start, within a second and naming the file, when a FIFO is in place of the index', BOUNDED, async () => {
    const dir = await folder('fifo');
    await twoVersions(dir);
    const index = join(dir, 'data', 'se-4b.history');
    await unlink(index);
    execFileSync('mkfifo', [index]);
    fifos.push(index);
    const began = performance.now();
    const result = await startOutcome(dir, 3_000);
    // Before: hung (no listener, no log line). After: refused in a few ms.
    assert.equal(result.outcome, 'refused', `${result.outcome} after ${Math.round(performance.now() - began)} ms`);
    assert.equal(result.code, 'SBKIT_SNAPSHOT_STORE_STORAGE');
    assert.ok(result.message!.includes(index), result.message);
    assert.match(result.message!, /is a FIFO, not a regular file.*put the file itself in its place, or remove it/);
    assert.ok(performance.now() - began < 1_000);
  });

  it('refuses to start, without reading it, when a link to /dev/zero is in place of the index', BOUNDED, async () => {
    const dir = await folder('zero');
    await twoVersions(dir);
    const index = join(dir, 'data', 'se-4b.history');
    await unlink(index);
    await symlink('/dev/zero', index);
    const began = performance.now();
    const result = await startOutcome(dir, 3_000);
    // Before: read zeros until memory ran out. After: refused in a few ms.
    assert.equal(result.outcome, 'refused', `${result.outcome} after ${Math.round(performance.now() - began)} ms`);
    assert.equal(result.code, 'SBKIT_SNAPSHOT_STORE_STORAGE');
    assert.ok(result.message!.includes(index), result.message);
    assert.match(result.message!, /is a symbolic link, not a regular file/);
    assert.ok(performance.now() - began < 1_000);
  });

  it('refuses a link or a FIFO in place of a version file just the same', BOUNDED, async () => {
    for (const planted of ['fifo', 'link'] as const) {
      const dir = await folder(`version-${planted}`);
      await twoVersions(dir);
      const data = join(dir, 'data');
      const version = join(
        data,
        (await readdir(data)).find((name) => name.endsWith('.full'))!,
      );
      await unlink(version);
      if (planted === 'fifo') {
        execFileSync('mkfifo', [version]);
        fifos.push(version);
      } else await symlink('/dev/zero', version);
      const result = await startOutcome(dir, 3_000);
      assert.equal(result.outcome, 'refused', planted);
      assert.ok(result.message!.includes(version), result.message);
    }
  });

  it('does not serve an older version whose hashes were changed and its file checksum made to match', BOUNDED, async () => {
    const dir = await folder('tampered');
    const firstVersion = await twoVersions(dir);
    const data = join(dir, 'data');
    // FIRST's: the folder also keeps the empty list published before the feeds were read.
    const served = (await readdir(data)).filter((name) => name.endsWith('.served')).map((name) => join(data, name));
    const sizes = await Promise.all(served.map(async (file) => (await readFile(file)).length));
    const older = served[sizes.indexOf(Math.max(...sizes))]!;
    const bytes = await readFile(older);
    assert.equal(bytes.length, 72 + FIRST.length * 4);
    // The file's last hash made the largest there is (still in order), and its checksum recomputed over
    // the 40 bytes of fields and the hashes (history-files.ts): a hand edit, not damage.
    bytes.fill(0xff, bytes.length - 4);
    createHash('sha256').update(bytes.subarray(0, 40)).update(bytes.subarray(72)).digest().copy(bytes, 40);
    await writeFile(older, bytes);
    const log: string[] = [];
    const service = await serve(dir, SECOND, (line) => log.push(line));
    const update = await hashListFrom(service.url, firstVersion);
    // Before: a diff from the tampered copy (partialUpdate true). After: the whole list, and a report.
    assert.equal(update.partialUpdate, false, 'a client at the tampered version gets the whole list');
    assert.ok(
      log.some((line) => line.includes(older) && /its served hashes are not those of version/.test(line)),
      log.join('\n'),
    );
  });

  it('replaces a link put in place of a file it writes, and writes nothing through it', BOUNDED, async () => {
    // The names a publication of SECOND writes are known beforehand: a version's name is its content's id.
    const learn = await folder('names');
    await (await serve(learn, SECOND)).close();
    const names = await readdir(join(learn, 'data'));
    assert.ok(names.some((name) => name.endsWith('.full')));
    const dir = await folder('links');
    const victim = join(dir, 'victim');
    await writeFile(victim, 'not sbkit’s');
    for (const name of names.filter((name) => name.endsWith('.full'))) await symlink(victim, join(dir, 'data', name));
    const service = await serve(dir, SECOND);
    assert.ok((await currentList(service.url)).version.length > 0, 'the list is served');
    assert.equal(await readFile(victim, 'utf8'), 'not sbkit’s');
    for (const name of names) assert.ok((await lstat(join(dir, 'data', name))).isFile(), `${name} is a file of its own`);
  });
});

describe('the entry edits kept in the data folder (S12)', () => {
  it('reports a FIFO in place of a list’s file of edits, and keeps serving the list, rather than wait on it', BOUNDED, async () => {
    const dir = await folder('edits-fifo');
    await (await serve(dir, SECOND)).close();
    const edits = join(dir, 'data', 'se-4b.entries.json');
    execFileSync('mkfifo', [edits]);
    fifos.push(edits);
    const errors: string[] = [];
    const result = await Promise.race([
      serve(dir, SECOND, undefined, (report) => errors.push(...report.errors)).then(
        () => 'started',
        (error: Error) => `refused: ${error.message}`,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('hung'), 3_000).unref()),
    ]);
    // Before: hung (the publication waited on the FIFO). After: started on the kept version, the file reported.
    assert.equal(result, 'started');
    assert.ok(
      errors.some((error) => error.includes(edits) && error.includes('is a FIFO, not a regular file')),
      errors.join('\n'),
    );
    const service = services.at(-1)!;
    assert.ok((await currentList(service.url)).version.length > 0, 'the list is served');
  });
});
