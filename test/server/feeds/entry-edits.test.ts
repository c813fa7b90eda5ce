import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  diskEntryEdits,
  editedEntries,
  editsFileName,
  editsProblem,
  MAX_EDITS_PER_LIST,
  memoryEntryEdits,
  NO_EDITS,
} from '../../../src/server/feeds/entry-edits.ts';
import { expressionLineExpression, urlExpression } from '../../../src/server/feeds/formats/entry-expression.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbkit-entry-edits-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const expression = fc.constantFrom('a.example/', 'b.example/', 'c.example/x', 'd.example/?q=1', 'e.example/');
const batch = fc.array(expression, { maxLength: 6 });

describe('editedEntries', () => {
  it('never holds an expression in both sets, and the last word on each expression wins', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(batch, batch), { maxLength: 5 }), (steps) => {
        let edits = NO_EDITS;
        const last = new Map<string, 'added' | 'removed'>();
        for (const [add, remove] of steps) {
          edits = editedEntries(edits, add, remove);
          for (const e of add) last.set(e, 'added');
          for (const e of remove) last.set(e, 'removed');
        }
        assert.deepEqual(
          edits.added,
          [...last]
            .filter(([, how]) => how === 'added')
            .map(([e]) => e)
            .sort(),
        );
        assert.deepEqual(
          edits.removed,
          [...last]
            .filter(([, how]) => how === 'removed')
            .map(([e]) => e)
            .sort(),
        );
      }),
    );
  });
});

describe('editsProblem', () => {
  it('finds nothing wrong with the canonical expressions an operator’s entries become', () => {
    // URLs, and expressions with any text in their path or none at all.
    const entry = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.domain(), fc.string({ unit: 'grapheme' })).map(([host, path]) => `${host}/${path}`),
      fc.string({ unit: 'grapheme' }),
    );
    const canonical = (entry: string) => {
      try {
        return /^[a-z][a-z0-9+.-]*:/i.test(entry) ? urlExpression(entry) : expressionLineExpression(entry);
      } catch {
        return undefined;
      }
    };
    fc.assert(
      fc.property(fc.array(entry), (entries) => {
        const expressions = [...new Set(entries.map(canonical).filter((e) => e !== undefined))];
        const half = Math.floor(expressions.length / 2);
        const edits = { added: expressions.slice(0, half), removed: expressions.slice(half) };
        assert.equal(editsProblem(edits), undefined, JSON.stringify(edits));
      }),
    );
  });

  it('names what sbkit does not write: too many edits, no canonical expression, one both added and removed', () => {
    const many = Array.from({ length: MAX_EDITS_PER_LIST + 1 }, (_, i) => `h${i}.example/`);
    assert.match(editsProblem({ added: many, removed: [] })!, /100001 edits, more than the 100000/);
    for (const edit of ['', 'a.example', '/path', 'a b.example/', 'a.example/#f', 'a.example/\n', 'é.example/']) {
      assert.match(editsProblem({ added: [], removed: [edit] })!, /which is no canonical expression/, JSON.stringify(edit));
    }
    assert.match(editsProblem({ added: ['a.example/'], removed: ['a.example/'] })!, /"a\.example\/" both added and removed/);
  });
});

describe('entry edit stores', () => {
  it('keep edits in memory per list', async () => {
    const store = memoryEntryEdits();
    await store.update('se-4b', ['a.example/'], []);
    assert.deepEqual(await store.read('se-4b'), { added: ['a.example/'], removed: [] });
    assert.deepEqual(await store.read('mw-4b'), NO_EDITS);
  });

  it('keep edits in a data folder, across stores, updates of one list in order', async () => {
    const folder = join(dir, 'data');
    const store = await diskEntryEdits(folder);
    await Promise.all([store.update('se-4b', ['a.example/'], []), store.update('se-4b', ['b.example/'], ['a.example/'])]);
    const reopened = await diskEntryEdits(folder);
    assert.deepEqual(await reopened.read('se-4b'), { added: ['b.example/'], removed: ['a.example/'] });
    assert.match(await readFile(join(folder, editsFileName('se-4b')), 'utf8'), /"list":"se-4b"/);
  });

  it('check the cap in the same step as the write: concurrent updates near it cannot all pass', async () => {
    for (const store of [memoryEntryEdits(), await diskEntryEdits(join(dir, 'capped'))]) {
      await store.update('se-4b', ['a.example/', 'b.example/'], [], 4);
      const answers = await Promise.all([
        store.update('se-4b', ['c.example/', 'd.example/'], [], 4),
        store.update('se-4b', ['e.example/', 'f.example/'], [], 4),
        store.update('se-4b', ['a.example/'], ['b.example/'], 4),
      ]);
      assert.equal(answers.filter((answer) => answer === 'too-many').length, 1, store.keeping);
      const edits = await store.read('se-4b');
      assert.equal(edits.added.length + edits.removed.length, 4, store.keeping);
    }
  });

  it('refuse a file that is not a list of edits, rather than forget them', async () => {
    const folder = join(dir, 'damaged');
    const store = await diskEntryEdits(folder);
    await writeFile(join(folder, editsFileName('se-4b')), '{"list":"mw-4b","added":[],"removed":[]}');
    await assert.rejects(store.read('se-4b'), /is not a file of se-4b's entry edits/);
    await assert.rejects(store.update('se-4b', ['a.example/'], []), /is not a file/);
  });
});
