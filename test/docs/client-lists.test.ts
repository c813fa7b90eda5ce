// docs/api.md's table of the lists each real client asks for is the table of src/lists/client-lists.ts,
// with the list that answers each as the server finds it (listAnswering): the page cannot say a list is
// served that the server answers empty, nor miss a list a client asks for. On a mismatch the message
// holds the table as it should read.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLIENT_FORMS, CLIENT_LISTS, type ClientList, listAnswering } from '../../src/lists/client-lists.ts';
import { PlatformType, ThreatEntryType, ThreatType } from '../../src/proto/v4.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
const HEADING = '### The lists each client asks for';

function asked(row: ClientList): string {
  if ('name' in row.asked) return `\`${row.asked.name}\``;
  const { threatType, platformType, threatEntryType } = row.asked.triple;
  return `${threatType} \`${ThreatType[threatType]}\`, \`${PlatformType[platformType]}\`, \`${ThreatEntryType[threatEntryType]}\``;
}

function answer(row: ClientList): string {
  const list = listAnswering(row.asked);
  return list === undefined ? 'an empty list, always' : `\`${list}\`; an empty list when not published`;
}

function expectedTable(): string {
  const lines = [
    '| client | its name for it | asks for | sbkit answers with | when asked | what it is |',
    '|---|---|---|---|---|---|',
    ...CLIENT_LISTS.map(
      (row) =>
        `| ${CLIENT_FORMS[row.form]} | \`${row.clientName}\` | ${asked(row)} | ${answer(row)} | ${row.when ?? 'always'} | ${row.note} |`,
    ),
  ];
  return lines.join('\n');
}

/** The first table after the heading. */
function pageTable(): string | undefined {
  const start = PAGE.indexOf(`\n${HEADING}\n`);
  if (start < 0) return undefined;
  const lines = PAGE.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  if (first < 0) return undefined;
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  return lines.slice(first, end < 0 ? undefined : end).join('\n');
}

describe("docs/api.md's table of the lists each client asks for", () => {
  it('has the section', () => {
    assert.ok(pageTable() !== undefined, `docs/api.md needs a "${HEADING}" section with a table`);
  });

  it('is the table of src/lists/client-lists.ts, with the lists the server answers from', () => {
    const expected = expectedTable();
    assert.equal(pageTable(), expected, `the table under "${HEADING}" should read:\n\n${expected}\n`);
  });

  it('names every client form', () => {
    const table = pageTable() ?? '';
    for (const label of Object.values(CLIENT_FORMS)) assert.ok(table.includes(label), label);
  });
});
