// One grammar of list names at every door: a name a server's configuration takes is one a request may
// ask for, the client may keep, the database may store and the CLI may name, and a name one of them
// refuses, all refuse, for the same reason in the same words.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { ClientOptionError } from '../../src/client/client-errors.ts';
import { SafeBrowsingClient } from '../../src/client/safe-browsing-client.ts';
import { listNameProblem, listNameReason } from '../../src/lists/list-name.ts';
import { createApp } from '../../src/server/http/app.ts';
import { ConfigError } from '../../src/server/config/config-error.ts';
import { parseServerConfig } from '../../src/server/config/config.ts';
import { LocalDatabase } from '../../src/store/database.ts';
import { HashList } from '../../src/store/hash-list.ts';
import { EXIT } from '../../src/cli/io.ts';
import { run } from '../cli/run.ts';
import { demoCatalog } from '../server/fixture.ts';

/** What a door did with a name: took it, or refused it with these words. */
type Verdict = { accepted: true } | { accepted: false; reason: string };

let app: FastifyInstance;
let dir: string;
let databases = 0;

before(async () => {
  app = createApp({ catalog: demoCatalog() });
  dir = await mkdtemp(join(tmpdir(), 'sbkit-list-names-'));
});
after(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

/** The reason a door gave, as the text after the door's own prefix. */
function refusedFor(message: string, reason: string): Verdict {
  assert.ok(message.includes(reason), `"${message}" does not give the reason "${reason}"`);
  return { accepted: false, reason };
}

const DOORS: Record<string, (name: string, reason: string) => Promise<Verdict>> = {
  async 'a server configuration file'(name, reason) {
    try {
      parseServerConfig({ lists: [{ name, threatTypes: ['MALWARE'], sources: [{ entries: [] }] }] }, dir);
      return { accepted: true };
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.field, 'lists[0].name');
      return refusedFor(error.problem, reason);
    }
  },
  async 'a request (HTTP 400 with the reason in the body)'(name, reason) {
    const response = await app.inject({ url: `/v5/hashLists:batchGet?names=${encodeURIComponent(name)}` });
    if (response.statusCode === 200) return { accepted: true };
    // A name the server neither publishes nor stands in for is taken as a name, and answered as no such list.
    if (response.statusCode === 404) {
      assert.equal(response.json<{ error: { details: { reason: string }[] } }>().error.details[0]?.reason, 'SBKIT_UNKNOWN_LIST');
      return { accepted: true };
    }
    assert.equal(response.statusCode, 400, response.body);
    return refusedFor(response.json<{ error: { message: string } }>().error.message, reason);
  },
  async 'the client (v5 and v4)'(name, reason) {
    const verdicts = (['v5', 'v4'] as const).map((protocol): Verdict => {
      try {
        new SafeBrowsingClient({ protocol, mode: protocol === 'v5' ? 'realtime' : 'local', lists: [name] });
        return { accepted: true };
      } catch (error) {
        assert.ok(error instanceof ClientOptionError, String(error));
        // v4 has the threat lists of SB-11 only: a good name v4 lacks is refused for that, not for its grammar.
        if (protocol === 'v4' && reason === '') return { accepted: true };
        return refusedFor(error.message, reason);
      }
    });
    assert.deepEqual(verdicts[0], verdicts[1]);
    return verdicts[0]!;
  },
  async 'the local database'(name, reason) {
    const folder = join(dir, `db-${databases++}`);
    const database = await LocalDatabase.open(folder);
    try {
      await database.save(HashList.empty(name, 4), 0);
    } catch (error) {
      assert.ok(error instanceof RangeError, String(error));
      return refusedFor(error.message, reason);
    }
    const reopened = await LocalDatabase.open(folder, { onDamaged: (error) => assert.fail(error.message) });
    assert.equal(reopened.get(name)?.list.name, name);
    return { accepted: true };
  },
  async 'the CLI (--lists)'(name, reason) {
    // No server listens on the discard port: a name the client takes ends in a failed check (2).
    const result = await run([
      'check',
      '--mode',
      'nostorage',
      '--timeout',
      '2000',
      '--server',
      'http://127.0.0.1:9',
      '--lists',
      name,
      'http://example.com/',
    ]);
    if (result.status !== EXIT.INVALID_INPUT) return { accepted: true };
    return refusedFor(result.err, reason);
  },
};

async function verdictsFor(name: string): Promise<void> {
  const problem = listNameProblem(name);
  const reason = problem === undefined ? '' : listNameReason(name, problem);
  for (const [door, verdictOf] of Object.entries(DOORS)) {
    const verdict = await verdictOf(name, reason);
    assert.deepEqual(verdict, problem === undefined ? { accepted: true } : { accepted: false, reason }, `${door}: ${JSON.stringify(name)}`);
  }
}

describe('a list name at every door', () => {
  it('the names real clients use, and names that are none', async () => {
    for (const name of ['se-4b', 'gc-32b', 'csdda-32b', 'test-4b', 'se', 'My_List.v2', 'x'.repeat(64)]) await verdictsFor(name);
    for (const name of ['', 'x'.repeat(65), 'se/4b', 'se:batchGet', '../etc', '-se', 'sé-4b', 'se 4b']) await verdictsFor(name);
  });

  it('property: any name is taken by all doors or refused by all, for the same reason', { timeout: 120_000 }, async () => {
    // The CLI takes names separated by commas and trims them: names with neither are what it can pass on.
    const passable = (name: string) => !name.includes(',') && name === name.trim();
    const word = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,70}$/);
    const anything = fc.string({ maxLength: 80, unit: 'binary' });
    await fc.assert(
      fc.asyncProperty(fc.oneof(word, anything).filter(passable), async (name) => {
        await verdictsFor(name);
      }),
      { numRuns: 150 },
    );
  });
});
