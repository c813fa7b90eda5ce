// Every error a user can meet can be caught by name and is explained: each class of src/ that extends
// SbkitError is exported from an entry point (the command line's own UsageError excepted: nobody imports
// the CLI), and docs/errors.md has a section for it that lists every one of its codes. Codes the page
// names that no class carries fail too, so that the page cannot outlive a code.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/cli/io.ts';
import * as root from '../../src/index.ts';
import { SbkitError } from '../../src/sbkit-error.ts';
import * as server from '../../src/server/index.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');

/** Every `class X extends SbkitError` in src/, with its file. */
function errorClassesInSource(): { name: string; file: string }[] {
  const found: { name: string; file: string }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        for (const [, name] of readFileSync(path, 'utf8').matchAll(/class (\w+) extends SbkitError\b/g)) {
          found.push({ name: name!, file: relative(ROOT, path) });
        }
      }
    }
  };
  visit(join(ROOT, 'src'));
  return found;
}

type ErrorClass = (abstract new (...args: never[]) => SbkitError) & { codes: readonly string[] };

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && value.prototype instanceof SbkitError && Array.isArray((value as { codes?: unknown }).codes);

/** The error classes the entry points export, by name, and the CLI's own. */
const EXPORTED = new Map<string, ErrorClass>(
  [...Object.entries(root as Record<string, unknown>), ...Object.entries(server as Record<string, unknown>)].filter(
    (entry): entry is [string, ErrorClass] => isErrorClass(entry[1]),
  ),
);

/** The part of the page under the heading that names `name`, up to the next heading. */
function sectionOf(name: string): string | undefined {
  const heading = new RegExp(`^#{2,4} .*\\b${name}\\b.*$`, 'm').exec(PAGE);
  if (heading === null) return undefined;
  const rest = PAGE.slice(heading.index + heading[0].length);
  const next = /^#{2,4} /m.exec(rest);
  return next === null ? rest : rest.slice(0, next.index);
}

describe('errors people can catch', () => {
  const classes = errorClassesInSource();

  it('finds the error classes of src/ (the scan works)', () => {
    assert.ok(classes.length >= 20, `only ${classes.length} classes found`);
    assert.ok(classes.some((c) => c.name === 'TransportError'));
  });

  it('exports every error class from an entry point (sbkit, sbkit/client, sbkit/url or sbkit/server)', () => {
    const missing = classes.filter((c) => !c.file.startsWith('src/cli/') && !EXPORTED.has(c.name)).map((c) => `${c.name} (${c.file})`);
    assert.deepEqual(missing, []);
  });

  it('gives every error class a section of docs/errors.md that lists each of its codes', () => {
    const all = new Map([...EXPORTED, ['UsageError', UsageError]]);
    const problems: string[] = [];
    for (const { name } of classes) {
      const type = all.get(name);
      if (type === undefined) continue;
      const section = sectionOf(name);
      if (section === undefined) {
        problems.push(`${name}: no section`);
        continue;
      }
      for (const code of type.codes) if (!section.includes(`\`${code}\``)) problems.push(`${name}: ${code} not listed`);
    }
    assert.deepEqual(problems, []);
  });

  it('names no code that no class carries', () => {
    const known = new Set([...EXPORTED.values(), UsageError as ErrorClass].flatMap((type) => type.codes));
    const unknown = [...PAGE.matchAll(/`(SBKIT_[A-Z0-9_]+)`/g)].map((m) => m[1]!).filter((code) => !known.has(code));
    assert.deepEqual(unknown, []);
  });

  it('gives every code the SBKIT_ prefix, once per class', () => {
    for (const [name, type] of EXPORTED) {
      assert.ok(type.codes.length > 0, name);
      assert.equal(new Set(type.codes).size, type.codes.length, name);
      for (const code of type.codes) assert.match(code, /^SBKIT_[A-Z0-9]+(?:_[A-Z0-9]+)*$/, name);
    }
  });
});
