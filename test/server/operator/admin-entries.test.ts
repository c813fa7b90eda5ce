// The operator's edits of a list's entries and the reload of one list, through `sbkit serve`'s service
// on loopback, checked with sbkit's own client as users check URLs.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SafeBrowsingClient } from '../../../src/client/safe-browsing-client.ts';
import { MAX_ENTRIES_PER_EDIT } from '../../../src/server/operator/admin-entries.ts';
import { readServerConfig } from '../../../src/server/config/config.ts';
import { type Service, startService } from '../../../src/server/service.ts';
import { FeedServer } from '../feeds/feed-server.ts';
import { deleteKeys, ensureRedis, REDIS_URL, uniqueKeyPrefix } from '../redis-fixture.ts';
import { until } from '../../support/waiting.ts';

const TOKEN = '9b2e61f0c4d8a7e3b5f1c6d2a8e4b0f7';
let dir: string;
let configFile: string;
const closing: Service[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-admin-entries-'));
  await writeFile(join(dir, 'mw.txt'), 'malware.example/\n');
  configFile = join(dir, 'sbkit.json');
  await writeFile(
    configFile,
    JSON.stringify({
      adminToken: TOKEN,
      lists: [
        { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [{ entries: ['configured.example/', 'mistake.example/'] }] },
        { name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: 'mw.txt', format: 'expressions' }] },
      ],
    }),
  );
});
after(async () => {
  for (const service of closing.splice(0)) await service.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(
  dataDir?: string,
  redis?: { url: string; keyPrefix: string },
  file = configFile,
): Promise<{ service: Service; log: string[] }> {
  const log: string[] = [];
  const service = await startService({
    host: '127.0.0.1',
    port: 0,
    lists: { from: 'config', file, config: await readServerConfig(file), dataDir },
    redis,
    loadControl: false,
    trustedProxies: [],
    trustedRelays: [],
    ohttp: { rotateMs: 3_600_000, overlapMs: 60_000 },
    log: (line) => log.push(line),
  });
  closing.push(service);
  return { service, log };
}

/** The fields of the operator's answers these tests read: an error's, an edit's, a reload's. */
interface AdminAnswer {
  error: { message: string };
  added: string[];
  removed: string[];
  kept: string;
  served: boolean;
  notServed?: string;
  reloaded: { published: boolean } & { list: string }[];
}

async function post(service: Service, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; json: AdminAnswer }> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as AdminAnswer };
}

const verdict = async (service: Service, url: string) =>
  (await new SafeBrowsingClient({ server: service.url, mode: 'nostorage' }).checkUrl(url)).verdict;

describe('POST /admin/lists/NAME/entries', () => {
  it('adds URLs and expressions and removes entries, published at once', async () => {
    const { service, log } = await serve();
    assert.equal(await verdict(service, 'http://incident.example/login'), 'SAFE');
    const { status, json } = await post(service, '/admin/lists/se-4b/entries', {
      add: ['http://Incident.example/login', 'other.example/'],
      remove: ['mistake.example/'],
    });
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(json.added, ['incident.example/login', 'other.example/']);
    assert.deepEqual(json.removed, ['mistake.example/']);
    assert.equal(json.reloaded.published, true);
    assert.equal(json.served, true);
    assert.equal(json.notServed, undefined);
    assert.match(json.kept, /in memory until the server stops/);
    assert.equal(await verdict(service, 'http://incident.example/login'), 'UNSAFE');
    assert.equal(await verdict(service, 'http://other.example/any/page'), 'UNSAFE');
    assert.equal(await verdict(service, 'http://mistake.example/'), 'SAFE');
    assert.equal(await verdict(service, 'http://configured.example/'), 'UNSAFE');
    assert.ok(log.some((line) => /se-4b: 2 entries added, 1 removed, kept in memory/.test(line)));
    const lost = log.filter((line) => line.includes('lost at restart'));
    assert.deepEqual(lost, [
      'the edits of se-4b through POST /admin/lists/NAME/entries are kept in memory and lost at restart: ' +
        'start with --data DIR (or dataDir in the configuration, or --redis) to keep them',
    ]);
  });

  it('refuses the whole batch for one bad entry, naming it', async () => {
    const { service } = await serve();
    const { status, json } = await post(service, '/admin/lists/se-4b/entries', { add: ['good.example/', 'ftp://bad.example/x'] });
    assert.equal(status, 400);
    assert.match(json.error.message, /add\[1\] "ftp:\/\/bad\.example\/x" is no entry/);
    assert.equal(await verdict(service, 'http://good.example/'), 'SAFE', 'nothing of the batch was applied');
    for (const [body, message] of [
      ['not json', /must be JSON/],
      [['a.example/'], /must be a JSON object/],
      [{ add: 'a.example/' }, /add must be an array/],
      [{ add: [], remove: [] }, /nothing to do/],
      [{ add: ['a.example/'], also: [] }, /unknown field "also"/],
      [{ add: [7] }, /add\[0\] must be a non-empty string/],
      [{ remove: ['single-label/'] }, /remove\[0\] "single-label\/" is no entry/],
      [{ add: Array.from({ length: MAX_ENTRIES_PER_EDIT + 1 }, (_, i) => `e${i}.example/`) }, /more than 10000/],
    ] as const) {
      const answer = await post(service, '/admin/lists/se-4b/entries', body);
      assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      assert.match(answer.json.error.message, message);
    }
  });

  it('names an unknown list, a list without entries, and wants the token', async () => {
    const { service } = await serve();
    const unknown = await post(service, '/admin/lists/nope-4b/entries', { add: ['a.example/'] });
    assert.equal(unknown.status, 404);
    assert.match(unknown.json.error.message, /no list "nope-4b" here; the lists are se-4b, mw-4b/);
    const fileOnly = await post(service, '/admin/lists/mw-4b/entries', { add: ['a.example/'] });
    assert.equal(fileOnly.status, 400);
    assert.match(fileOnly.json.error.message, /has no "entries" source to edit/);
    const stranger = await post(service, '/admin/lists/se-4b/entries', { add: ['a.example/'] }, 'f'.repeat(32));
    assert.equal(stranger.status, 401);
    assert.equal(await verdict(service, 'http://a.example/'), 'SAFE');
  });

  it('keeps the edits in the data folder across a restart', async () => {
    const data = join(dir, 'data');
    const first = await serve(data);
    assert.ok(!first.log.some((line) => line.includes('lost at restart')), 'edits kept: no warning');
    const { json } = await post(first.service, '/admin/lists/se-4b/entries', { add: ['kept.example/'], remove: ['configured.example/'] });
    assert.match(json.kept, /in the data folder/);
    await first.service.close();
    const second = await serve(data);
    assert.equal(await verdict(second.service, 'http://kept.example/'), 'UNSAFE');
    assert.equal(await verdict(second.service, 'http://configured.example/'), 'SAFE');
  });
});

describe('POST /admin/lists/NAME/entries to a list with a URL feed', () => {
  let feeds: FeedServer;
  before(async () => {
    feeds = await FeedServer.start();
  });
  after(async () => {
    await feeds.close();
  });

  /** A configuration file `name` of se-4b from the feed at `path` (with `settings`) and editable entries. */
  async function withFeed(name: string, path: string, settings: object = {}): Promise<string> {
    const file = join(dir, name);
    const feed = { url: feeds.url(path), format: 'urls', allowPrivateAddresses: true, ...settings };
    const lists = [{ name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], sources: [feed, { entries: [] }] }];
    await writeFile(file, JSON.stringify({ adminToken: TOKEN, lists }));
    return file;
  }

  it('answers 202: the edit is kept, not served until the feed is read, and says why', async () => {
    let up = true;
    feeds.route('/feed', (_request, response) => {
      if (up) response.writeHead(200).end('http://from-feed.example/\n');
      else response.writeHead(500).end();
    });
    const file = await withFeed('with-feed.json', '/feed');
    const data = join(dir, 'with-feed-data');
    const first = await serve(data, undefined, file);
    await first.service.close();
    // Restarted while the feed is down: the list is served from the data folder, the feed has no copy.
    up = false;
    const { service, log } = await serve(data, undefined, file);
    assert.equal(await verdict(service, 'http://from-feed.example/'), 'UNSAFE');
    const { status, json } = await post(service, '/admin/lists/se-4b/entries', { add: ['incident.example/'] });
    assert.equal(status, 202, JSON.stringify(json));
    assert.equal(json.served, false);
    assert.match(json.notServed!, /\/feed: the server answered HTTP 500.*that source has no copy.*served once that source is read/);
    assert.match(json.kept, /in the data folder/);
    assert.equal(await verdict(service, 'http://incident.example/'), 'SAFE', 'not served: the answer says so');
    assert.ok(log.some((line) => /se-4b: 1 entries added, 0 removed, .*; not served yet: the list stays as it was/.test(line)));
    up = true;
    const reloaded = await post(service, '/admin/reload?list=se-4b');
    assert.equal(reloaded.status, 200);
    assert.equal(await verdict(service, 'http://incident.example/'), 'UNSAFE', 'served once the feed is read');
    assert.equal(await verdict(service, 'http://from-feed.example/'), 'UNSAFE');
  });

  it('answers 200 at once, served, without waiting for the download; the download then publishes on top', async () => {
    // The first request is answered; later ones hang until released, as a feed server that stalls.
    let feedText = 'http://from-feed.example/\n';
    const hanging: (() => void)[] = [];
    let hung: () => void = () => {};
    feeds.route('/hangs', (_request, response) => {
      const answer = () => response.writeHead(200).end(feedText);
      if (feeds.count('/hangs') === 1) answer();
      else {
        hanging.push(answer);
        hung();
      }
    });
    const file = await withFeed('with-hanging-feed.json', '/hangs', { timeoutSeconds: 600 });
    const { service } = await serve(undefined, undefined, file);
    const downloading = new Promise<void>((resolve) => (hung = resolve));
    let reloaded = false;
    const reload = post(service, '/admin/reload?list=se-4b').then((answer) => {
      reloaded = true;
      return answer;
    });
    await downloading;
    // Bounded far below the feed's timeout of 600 s: an edit queued behind the download fails here.
    let bound: NodeJS.Timeout | undefined;
    const { status, json } = await Promise.race([
      post(service, '/admin/lists/se-4b/entries', { add: ['incident.example/'] }),
      new Promise<never>((_resolve, reject) => {
        bound = setTimeout(() => reject(new Error('no answer within 10 s while the download hangs')), 10_000);
      }),
    ]).finally(() => clearTimeout(bound));
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.served, true);
    assert.equal(reloaded, false, 'answered while the download still hangs');
    assert.equal(hanging.length, 1);
    assert.equal(await verdict(service, 'http://incident.example/'), 'UNSAFE');
    assert.equal(await verdict(service, 'http://from-feed.example/'), 'UNSAFE', "the feed's copy still counts");
    feedText += 'http://new-in-feed.example/\n';
    hanging.shift()!();
    assert.equal((await reload).status, 200);
    assert.equal(await verdict(service, 'http://new-in-feed.example/'), 'UNSAFE');
    assert.equal(await verdict(service, 'http://incident.example/'), 'UNSAFE', 'the download published on top of the edit, with it');
  });
});

describe('POST /admin/lists/NAME/entries where the edits cannot be kept', () => {
  it('answers 503 and changes nothing', async () => {
    const data = join(dir, 'damaged-data');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, 'se-4b.entries.json'), 'not json');
    const { service } = await serve(data);
    const { status, json } = await post(service, '/admin/lists/se-4b/entries', { add: ['lost.example/'] });
    assert.equal(status, 503);
    assert.match(json.error.message, /the edits of se-4b could not be kept, so none was made, unless Redis received them/);
    assert.equal(await readFile(join(data, 'se-4b.entries.json'), 'utf8'), 'not json');
  });
});

describe('POST /admin/lists/NAME/entries with Redis', () => {
  const keyPrefix = uniqueKeyPrefix();
  before(ensureRedis);
  after(() => deleteKeys(keyPrefix));

  it('shares the edits with every instance, through their own reloads and a restart', async () => {
    const redis = { url: REDIS_URL, keyPrefix };
    const a = await serve(undefined, redis);
    const b = await serve(undefined, redis);
    const { status, json } = await post(a.service, '/admin/lists/se-4b/entries', {
      add: ['shared.example/'],
      remove: ['mistake.example/'],
    });
    assert.equal(status, 200, JSON.stringify(json));
    assert.match(json.kept, /in Redis, for every instance/);
    await until(
      5000,
      'the other instance serves the addition',
      async () => (await verdict(b.service, 'http://shared.example/')) === 'UNSAFE',
    );
    // The other instance's own load of the list reads the edits too, and publishes the same content.
    assert.equal((await post(b.service, '/admin/reload?list=se-4b')).status, 200);
    assert.equal(await verdict(b.service, 'http://shared.example/'), 'UNSAFE');
    assert.equal(await verdict(b.service, 'http://mistake.example/'), 'SAFE');
    await a.service.close();
    await b.service.close();
    const c = await serve(undefined, redis);
    assert.equal(await verdict(c.service, 'http://shared.example/'), 'UNSAFE');
    assert.equal(await verdict(c.service, 'http://mistake.example/'), 'SAFE');
  });
});

describe('POST /admin/reload?list=NAME', () => {
  it('reloads that list alone, and names an unknown one', async () => {
    const { service } = await serve();
    await writeFile(join(dir, 'mw.txt'), 'malware.example/\nnew-malware.example/\n');
    const { status, json } = await post(service, '/admin/reload?list=mw-4b');
    assert.equal(status, 200);
    assert.deepEqual(
      json.reloaded.map((report) => report.list),
      ['mw-4b'],
    );
    assert.equal(await verdict(service, 'http://new-malware.example/'), 'UNSAFE');
    const unknown = await post(service, '/admin/reload?list=nope-4b');
    assert.equal(unknown.status, 404);
    assert.match(unknown.json.error.message, /no list "nope-4b" here; the lists are se-4b, mw-4b/);
    const twice = await post(service, '/admin/reload?list=se-4b&list=mw-4b');
    assert.equal(twice.status, 400);
  });
});
