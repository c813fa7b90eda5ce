import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../../src/server/config/config-error.ts';
import { configWarnings, DEFAULT_FEED_LIMITS, parseServerConfig, readServerConfig } from '../../../src/server/config/config.ts';
import { assertRefused, BASE, exampleLists } from './config-fixture.ts';
import { DEFAULT_WEB_RISK_LISTS } from '../../../src/lists/web-risk-lists.ts';

/** The example of the documentation: two lists, every kind of source. */
function example(): Record<string, unknown> {
  return {
    minimumWaitSeconds: 1800,
    cacheDurationSeconds: 300,
    keepVersions: 10,
    apiKeys: ['key-one'],
    adminToken: '3f0c9d1e7a5b42c8a9e6d0b1c2f3a4b5',
    lists: exampleLists(),
  };
}

describe('parseServerConfig', () => {
  it('gives the typed configuration, paths resolved against the base folder', () => {
    const config = parseServerConfig(example(), BASE);
    assert.deepEqual(config, {
      minimumWaitSeconds: 1800,
      cacheDurationSeconds: 300,
      positiveCacheDurationSeconds: 300,
      negativeCacheDurationSeconds: 30,
      changingWindowSeconds: 1800,
      listCacheSeconds: 300,
      keepVersions: 10,
      apiKeys: ['key-one'],
      adminToken: '3f0c9d1e7a5b42c8a9e6d0b1c2f3a4b5',
      feedLimits: DEFAULT_FEED_LIMITS,
      lists: [
        {
          name: 'se-4b',
          threatTypes: ['SOCIAL_ENGINEERING'],
          likelySafeTypes: [],
          hashLength: 4,
          description: 'phishing',
          sources: [
            { kind: 'file', path: '/etc/sbkit/feeds/openphish.txt', format: 'urls', csvColumn: undefined, refreshMinutes: undefined },
            { kind: 'url', url: 'https://urlhaus.abuse.ch/downloads/csv_recent/', format: 'csv', csvColumn: undefined, refreshMinutes: 30 },
            { kind: 'entries', entries: ['evil.example/'], format: 'expressions', csvColumn: undefined },
          ],
        },
        {
          name: 'gc-32b',
          threatTypes: [],
          likelySafeTypes: ['GENERAL_BROWSING'],
          hashLength: 32,
          description: '',
          sources: [{ kind: 'file', path: '/data/top.csv', format: 'domains', csvColumn: 1, refreshMinutes: undefined }],
        },
      ],
      loadControl: { enabled: true, settings: {} },
      upstreamSearches: {},
      webRiskLists: DEFAULT_WEB_RISK_LISTS,
      http: {},
      corsOrigins: [],
    });
  });

  it('reads how a proxy spends its upstream, within bounds', () => {
    const config = parseServerConfig(
      {
        upstreamSearches: {
          requestsPerMinute: 5,
          burst: 2,
          anonymousPrefixesPerMinute: 40,
          keyedPrefixesPerMinute: 4000,
          neighbourhoodPrefixesPerMinute: 200,
          relayedPrefixesPerMinute: 9000,
          maxWaitMilliseconds: 1500,
        },
      },
      BASE,
    );
    assert.deepEqual(config.upstreamSearches, {
      requestsPerMinute: 5,
      burst: 2,
      anonymousPrefixesPerMinute: 40,
      keyedPrefixesPerMinute: 4000,
      neighbourhoodPrefixesPerMinute: 200,
      relayedPrefixesPerMinute: 9000,
      maxWaitMs: 1500,
    });
    assert.throws(() => parseServerConfig({ upstreamSearches: { requestsPerMinute: 0 } }, BASE), /upstreamSearches\.requestsPerMinute/);
    assert.throws(() => parseServerConfig({ upstreamSearches: { rate: 3 } }, BASE), /upstreamSearches\.rate: is not a known setting/);
  });

  it('reads the loadControl section in the units people write, and refuses what cannot work', () => {
    const config = parseServerConfig(
      {
        loadControl: {
          maxConcurrent: 40,
          maxWaiting: 10,
          waitMilliseconds: 250,
          crawlerIntervalSeconds: 60,
          anyCrawlerIntervalSeconds: 5,
          burstWindowSeconds: 10,
          burstMax: 50,
          maxClients: 500_000,
          trustedProxies: ['10.0.0.0/8', '::1'],
          trustedRelays: ['192.0.2.10'],
          crawlerPatterns: ['MyCrawler/\\d'],
        },
      },
      BASE,
    );
    assert.deepEqual(config.loadControl, {
      enabled: true,
      settings: {
        loadMax: 40,
        sleepingMax: 10,
        delayMs: 250,
        crawlerIntervalMs: 60_000,
        anyCrawlerIntervalMs: 5_000,
        burstWindowMs: 10_000,
        burstMax: 50,
        maxClients: 500_000,
        trustedProxies: ['10.0.0.0/8', '::1'],
        trustedRelays: ['192.0.2.10'],
        extraCrawlers: ['MyCrawler/\\d'],
      },
    });
    assert.equal(parseServerConfig({ loadControl: { enabled: false } }, BASE).loadControl.enabled, false);
    assert.throws(
      () => parseServerConfig({ loadControl: { trustedProxies: ['10.0.0.0/33'] } }, BASE),
      /loadControl\.trustedProxies: trusted proxy "10\.0\.0\.0\/33" is neither/,
    );
    assert.throws(
      () => parseServerConfig({ loadControl: { trustedRelays: ['relay.example'] } }, BASE),
      /loadControl\.trustedRelays: trusted relay "relay\.example" is neither/,
    );
    assert.throws(
      () => parseServerConfig({ loadControl: { crawlerPatterns: ['('] } }, BASE),
      /loadControl\.crawlerPatterns\[0\]: is not a regular expression/,
    );
    assert.throws(() => parseServerConfig({ loadControl: { maxConcurrent: 0 } }, BASE), /loadControl\.maxConcurrent/);
    assert.throws(() => parseServerConfig({ loadControl: { limit: 3 } }, BASE), /loadControl/);
    assert.throws(() => parseServerConfig({ loadControl: { enabled: 'no' } }, BASE), /loadControl\.enabled: must be true or false/);
  });

  it('reads the budgets of addresses and API keys, naming a key by its start only', () => {
    const config = parseServerConfig(
      {
        apiKeys: ['proxy-key-123', 'app-key-456'],
        loadControl: { addressBurstMax: 200, keyBurstMax: 500, keyBudgets: { 'proxy-key-123': 5000 } },
      },
      BASE,
    );
    assert.deepEqual(config.loadControl.settings, { addressBurstMax: 200, keyBurstMax: 500, keyBudgets: { 'proxy-key-123': 5000 } });
    const unknown = () => parseServerConfig({ apiKeys: ['app-key-456'], loadControl: { keyBudgets: { 'secret-not-listed': 10 } } }, BASE);
    assert.throws(unknown, /loadControl\.keyBudgets\["secr…"\]: is no key of apiKeys/);
    assert.throws(unknown, (error: Error) => !error.message.includes('secret-not-listed'), 'the whole key is not shown');
    assert.throws(
      () => parseServerConfig({ apiKeys: ['app-key-456'], loadControl: { keyBudgets: { 'app-key-456': -1 } } }, BASE),
      /loadControl\.keyBudgets\["app-…"\]/,
    );
    assert.throws(() => parseServerConfig({ loadControl: { addressBurstMax: 1.5 } }, BASE), /loadControl\.addressBurstMax/);
  });

  it('accepts a minimum wait and a cache duration of a day, what its clients obey at most', () => {
    const config = parseServerConfig({ minimumWaitSeconds: 86_400, cacheDurationSeconds: 86_400 }, BASE);
    assert.equal(config.minimumWaitSeconds, 86_400);
    assert.equal(config.cacheDurationSeconds, 86_400);
  });

  it('splits the cache duration: positive by default cacheDurationSeconds, negative 30 s or that when shorter', () => {
    const old = parseServerConfig({ cacheDurationSeconds: 120 }, BASE);
    assert.equal(old.positiveCacheDurationSeconds, 120);
    assert.equal(old.negativeCacheDurationSeconds, 30);
    const short = parseServerConfig({ cacheDurationSeconds: 10 }, BASE);
    assert.deepEqual([short.positiveCacheDurationSeconds, short.negativeCacheDurationSeconds], [10, 10]);
    const split = parseServerConfig({ cacheDurationSeconds: 120, negativeCacheDurationSeconds: 0 }, BASE);
    assert.equal(split.positiveCacheDurationSeconds, 120);
    assert.equal(split.negativeCacheDurationSeconds, 0);
    const longer = parseServerConfig({ negativeCacheDurationSeconds: 600 }, BASE);
    assert.deepEqual([longer.positiveCacheDurationSeconds, longer.negativeCacheDurationSeconds], [300, 600]);
    for (const value of [-1, 86_401, 'x'])
      assert.throws(
        () => parseServerConfig({ negativeCacheDurationSeconds: value }, BASE),
        /negativeCacheDurationSeconds: must be a number from 0 to 86400/,
      );
  });

  it('warns of waits Firefox ignores (under 300 s), naming each field, and takes them all the same', () => {
    assert.deepEqual(configWarnings(parseServerConfig({ changingMinimumWaitSeconds: 300 }, BASE)), []);
    assert.deepEqual(configWarnings(parseServerConfig({}, BASE)), []);
    const [changing, ...rest] = configWarnings(parseServerConfig({ changingMinimumWaitSeconds: 60 }, BASE));
    assert.deepEqual(rest, []);
    assert.match(
      changing!,
      /^changingMinimumWaitSeconds is 60: Firefox ignores a minimum_wait_duration under 300 s and then waits 30 minutes/,
    );
    const both = configWarnings(parseServerConfig({ minimumWaitSeconds: 120, changingMinimumWaitSeconds: 1 }, BASE));
    assert.deepEqual(
      both.map((line) => line.split(':')[0]),
      ['minimumWaitSeconds is 120', 'changingMinimumWaitSeconds is 1'],
    );
  });

  it('takes a wait for changing lists, never zero (SB-12) nor longer than the usual one', () => {
    const config = parseServerConfig({ minimumWaitSeconds: 1200, changingMinimumWaitSeconds: 300 }, BASE);
    assert.equal(config.changingMinimumWaitSeconds, 300);
    assert.equal(config.changingWindowSeconds, 1200, 'changing for one usual wait by default');
    assert.equal(parseServerConfig({ changingMinimumWaitSeconds: 60, changingWindowSeconds: 600 }, BASE).changingWindowSeconds, 600);
    assert.equal(parseServerConfig({}, BASE).changingMinimumWaitSeconds, undefined);
    assert.throws(
      () => parseServerConfig({ changingMinimumWaitSeconds: 0 }, BASE),
      /changingMinimumWaitSeconds: must be a number from 1 to 1800/,
    );
    assert.throws(() => parseServerConfig({ minimumWaitSeconds: 600, changingMinimumWaitSeconds: 900 }, BASE), /from 1 to 600/);
    assert.throws(
      () => parseServerConfig({ changingWindowSeconds: 600 }, BASE),
      /changingWindowSeconds: does nothing without changingMinimumWaitSeconds/,
    );
  });

  it('accepts a list cache time from 0 (revalidate every time) to an hour', () => {
    assert.equal(parseServerConfig({ listCacheSeconds: 0 }, BASE).listCacheSeconds, 0);
    assert.equal(parseServerConfig({ listCacheSeconds: 3600 }, BASE).listCacheSeconds, 3600);
  });

  it('fills in defaults for an empty configuration', () => {
    const config = parseServerConfig({}, BASE);
    assert.equal(config.minimumWaitSeconds, 1800);
    assert.equal(config.cacheDurationSeconds, 300);
    assert.equal(config.listCacheSeconds, 300);
    assert.equal(config.keepVersions, 10);
    assert.deepEqual(config.apiKeys, []);
    assert.equal(config.adminToken, undefined);
    assert.deepEqual(config.lists, []);
    assert.equal(config.dataDir, undefined, 'lists in memory only');
  });

  it("resolves dataDir against the configuration file's folder", () => {
    assert.equal(parseServerConfig({ dataDir: 'data' }, BASE).dataDir, join(BASE, 'data'));
    assert.equal(parseServerConfig({ dataDir: '/var/lib/sbkit' }, BASE).dataDir, '/var/lib/sbkit');
  });

  it('reads an operator listener and a URL source allowed to reach private addresses', () => {
    const config = parseServerConfig(
      {
        adminListen: '[::1]:9090',
        lists: [
          {
            name: 'mine',
            threatTypes: ['MALWARE'],
            sources: [{ url: 'http://feeds.internal.example/x.txt', format: 'urls', allowPrivateAddresses: true }],
          },
        ],
      },
      BASE,
    );
    assert.deepEqual(config.adminListen, { host: '::1', port: 9090 });
    assert.equal(config.lists[0]!.sources[0]!.kind === 'url' && config.lists[0]!.sources[0]!.allowPrivateAddresses, true);
    assert.equal(parseServerConfig({}, BASE).adminListen, undefined);
  });

  it('turns the feed limits into milliseconds and bytes', () => {
    const config = parseServerConfig({ feedTimeoutSeconds: 5, feedMaxMegabytes: 2, feedMaxEntries: 1000 }, BASE);
    assert.deepEqual(config.feedLimits, { timeoutMs: 5000, maxBytes: 2 * 1024 * 1024, maxEntries: 1000 });
    assert.equal(parseServerConfig({}, BASE).feedLimits.maxEntries, 2_000_000);
  });

  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access -- each edit breaks one field of arbitrary JSON */
  type Edit = (config: Record<string, any>) => void;
  const errors: [string, Edit, string, RegExp][] = [
    ['not an object', (c) => Object.assign(c, { lists: 'x' }), 'lists', /must be an array/],
    ['an unknown top-level field', (c) => (c.list = []), 'list', /not a known setting.*lists/],
    ['a misspelt list field', (c) => (c.lists[0].threatType = ['MALWARE']), 'lists[0].threatType', /not a known setting/],
    [
      'a misspelt source field',
      (c) => (c.lists[0].sources[1].refreshMinute = 5),
      'lists[0].sources[1].refreshMinute',
      /not a known setting/,
    ],
    ['a negative minimum wait', (c) => (c.minimumWaitSeconds = -1), 'minimumWaitSeconds', /from 1 to 86400/],
    // Clients cut both to a day (RF-3, SB-8); a longer one used to spin a client's timer past 24.8 days.
    ['a minimum wait past a day', (c) => (c.minimumWaitSeconds = 30 * 86_400), 'minimumWaitSeconds', /from 1 to 86400/],
    ['a cache duration past a day', (c) => (c.cacheDurationSeconds = 1e9), 'cacheDurationSeconds', /from 0 to 86400/],
    // An edge cache serves the version before a publish for up to max-age.
    ['a list cache time past an hour', (c) => (c.listCacheSeconds = 3601), 'listCacheSeconds', /from 0 to 3600/],
    ['a fractional list cache time', (c) => (c.listCacheSeconds = 2.5), 'listCacheSeconds', /whole number/],
    ['a fractional keepVersions', (c) => (c.keepVersions = 2.5), 'keepVersions', /whole number/],
    ['an empty dataDir', (c) => (c.dataDir = ''), 'dataDir', /non-empty string/],
    ['a number as dataDir', (c) => (c.dataDir = 7), 'dataDir', /non-empty string/],
    ['a number as API key', (c) => (c.apiKeys = ['ok', 7]), 'apiKeys[1]', /non-empty string/],
    ['a short admin token', (c) => (c.adminToken = 'secret'), 'adminToken', /6 characters, fewer than the 32.*openssl rand -hex 32/],
    ['an admin token of one character', (c) => (c.adminToken = 'a'.repeat(40)), 'adminToken', /only 1 different characters/],
    ['an admin token that repeats', (c) => (c.adminToken = '0123456789'.repeat(4)), 'adminToken', /repeats its first 10 characters/],
    ['an admin listener without port', (c) => (c.adminListen = '127.0.0.1'), 'adminListen', /HOST:PORT/],
    ['a huge feed limit', (c) => (c.feedMaxMegabytes = 4096), 'feedMaxMegabytes', /from 1 to 500/],
    ['no entries allowed', (c) => (c.feedMaxEntries = 0), 'feedMaxEntries', /whole number from 1/],
    ['a repeated list name', (c) => (c.lists[1].name = 'se-4b'), 'lists[1].name', /unique/],
  ];
  /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access */
  for (const [name, edit, field, message] of errors) {
    it(`names the field of ${name}`, () => {
      const config = example();
      edit(config);
      assertRefused(() => parseServerConfig(config, BASE), field, message);
    });
  }

  it('accepts the example of docs/configuration.md', () => {
    const page = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(page);
    assert.ok(example !== null);
    const config = parseServerConfig(JSON.parse(example[1]!), BASE);
    assert.deepEqual(
      config.lists.map((list) => [list.name, list.hashLength, list.sources.length]),
      [
        ['se-4b', 4, 3],
        ['mw-4b', 4, 2],
        ['gc-32b', 32, 1],
      ],
    );
  });

  it('refuses a document that is not an object', () => {
    assert.throws(
      () => parseServerConfig([], BASE),
      (error: unknown) => error instanceof ConfigError && error.field === '' && /must be an object/.test(error.message),
    );
  });
});

describe('readServerConfig', () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'sbkit-config-'));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('resolves relative source paths against the folder of the file', async () => {
    const file = join(folder, 'sbkit.json');
    await writeFile(
      file,
      JSON.stringify({ lists: [{ name: 'mw-4b', threatTypes: ['MALWARE'], sources: [{ file: 'feeds/hosts.txt', format: 'hosts' }] }] }),
    );
    const config = await readServerConfig(file);
    assert.deepEqual(config.lists[0]!.sources[0], {
      kind: 'file',
      path: join(folder, 'feeds/hosts.txt'),
      format: 'hosts',
      csvColumn: undefined,
      refreshMinutes: undefined,
    });
  });

  it("reads the admin token and the upstream key from files, relative to the configuration's folder, without a final line break", async () => {
    const file = join(folder, 'secrets.json');
    const token = '5c1e9a7b3d0f28e4a6c2b9d1f7e3a05b';
    await writeFile(join(folder, 'admin-token'), `${token}\n`);
    await writeFile(join(folder, 'upstream-key'), 'AIza-upstream-key\r\n');
    await writeFile(file, JSON.stringify({ adminTokenFile: 'admin-token', upstreamKeyFile: join(folder, 'upstream-key') }));
    const config = await readServerConfig(file);
    assert.equal(config.adminToken, token);
    assert.equal(config.upstreamKey, 'AIza-upstream-key');
    await writeFile(file, JSON.stringify({ upstreamKey: 'AIza-inline' }));
    assert.equal((await readServerConfig(file)).upstreamKey, 'AIza-inline');
  });

  it('refuses a key or token file that cannot serve, naming the field and the path but never what the file holds', async () => {
    const file = join(folder, 'bad-secrets.json');
    const weak = 'weak-token-in-a-file';
    await writeFile(join(folder, 'weak'), weak);
    await writeFile(join(folder, 'blank'), '\n');
    await writeFile(join(folder, 'two-lines'), 'AIza-first-line\nAIza-second-line\n');
    await writeFile(join(folder, 'large'), 'x'.repeat(20_000));
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ adminTokenFile: 'missing' }, 'adminTokenFile', /names \S+missing, which cannot be read \(ENOENT: no such file or directory\)$/],
      [{ upstreamKeyFile: 'blank' }, 'upstreamKeyFile', /names \S+blank, which is empty$/],
      [{ upstreamKeyFile: 'two-lines' }, 'upstreamKeyFile', /which holds more than one line/],
      [{ upstreamKeyFile: '.' }, 'upstreamKeyFile', /which is not a file$/],
      [{ upstreamKeyFile: 'large' }, 'upstreamKeyFile', /which holds 20000 bytes, more than the 16384 a key or a token may take$/],
      [{ adminTokenFile: 'weak' }, 'adminTokenFile', /has 20 characters, fewer than the 32/],
      [
        { adminToken: '5c1e9a7b3d0f28e4a6c2b9d1f7e3a05b', adminTokenFile: 'weak' },
        'adminTokenFile',
        /and adminToken give the same secret twice/,
      ],
      [{ upstreamKey: 'AIza-inline', upstreamKeyFile: 'blank' }, 'upstreamKeyFile', /and upstreamKey give the same secret twice/],
    ];
    for (const [json, field, problem] of cases) {
      await writeFile(file, JSON.stringify(json));
      await assert.rejects(readServerConfig(file), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.field, field, JSON.stringify(json));
        assert.match(error.problem, problem);
        assert.doesNotMatch(error.message, /weak-token|AIza-(first|second)/);
        return true;
      });
    }
  });

  it('names the file in every error', async () => {
    const broken = join(folder, 'broken.json');
    await writeFile(broken, '{ "lists": [ }');
    await assert.rejects(
      readServerConfig(broken),
      (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${broken}: is not valid JSON`),
    );

    const bad = join(folder, 'bad.json');
    await writeFile(bad, JSON.stringify({ keepVersions: 0 }));
    await assert.rejects(readServerConfig(bad), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.file, bad);
      assert.equal(error.field, 'keepVersions');
      assert.match(error.message, new RegExp(`^${bad}: keepVersions: must be a whole number at least 1`));
      return true;
    });

    const missing = join(folder, 'missing.json');
    await assert.rejects(
      readServerConfig(missing),
      (error: unknown) => error instanceof ConfigError && /cannot read the configuration file/.test(error.message),
    );
  });
});

describe('webRiskLists', () => {
  const list = (name: string, hashLength?: number) => ({
    name,
    threatTypes: ['SOCIAL_ENGINEERING'],
    ...(hashLength === undefined ? {} : { hashLength }),
    sources: [{ entries: ['a.example/'] }],
  });

  it('maps types over the defaults; null answers a type with no list', () => {
    const config = parseServerConfig(
      { lists: [list('se-4b'), list('seec-4b')], webRiskLists: { SOCIAL_ENGINEERING_EXTENDED_COVERAGE: 'seec-4b', MALWARE: null } },
      BASE,
    );
    assert.deepEqual(config.webRiskLists, {
      MALWARE: undefined,
      SOCIAL_ENGINEERING: 'se-4b',
      UNWANTED_SOFTWARE: 'uws-4b',
      SOCIAL_ENGINEERING_EXTENDED_COVERAGE: 'seec-4b',
    });
  });

  it('refuses unknown types, lists the configuration lacks and lists of wider hashes', () => {
    assert.throws(() => parseServerConfig({ webRiskLists: { PHISHING: 'se-4b' } }, BASE), /webRiskLists\.PHISHING: is not a known setting/);
    assert.throws(
      () => parseServerConfig({ lists: [list('se-4b')], webRiskLists: { MALWARE: 'mw-4b' } }, BASE),
      /webRiskLists\.MALWARE: names mw-4b, which is none of lists \(se-4b\)/,
    );
    assert.throws(
      () => parseServerConfig({ lists: [list('corp', 32)], webRiskLists: { MALWARE: 'corp' } }, BASE),
      /webRiskLists\.MALWARE: names corp, a list of 32-byte hashes; only 4-byte lists can be Web Risk lists/,
    );
    assert.throws(
      () => parseServerConfig({ webRiskLists: { MALWARE: 3 } }, BASE),
      (error: unknown) => error instanceof ConfigError,
    );
  });
});
