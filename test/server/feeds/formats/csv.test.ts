import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readCsvRecord } from '../../../../src/server/feeds/formats/csv.ts';

/** Every record of a text, read as a feed reader does (spanning lines). */
function records(text: string): string[][] {
  const all: string[][] = [];
  for (let start = 0; start < text.length;) {
    const record = readCsvRecord(text, start, true);
    all.push(record.fields);
    start = record.next;
  }
  return all;
}

describe('readCsvRecord (RFC 4180)', () => {
  const cases: [string, string, string[][]][] = [
    [
      'plain fields',
      'a,b,c\n1,2,3\n',
      [
        ['a', 'b', 'c'],
        ['1', '2', '3'],
      ],
    ],
    [
      'CRLF line ends',
      'a,b\r\n1,2\r\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'a last line without line end',
      'a,b\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    ['empty fields', ',,\n', [['', '', '']]],
    ['quoted commas', '1,"http://a.example/x,y",z\n', [['1', 'http://a.example/x,y', 'z']]],
    ['doubled quotes', '"say ""hi""",""\n', [['say "hi"', '']]],
    ['a quoted line break', '"two\nlines",x\nnext\n', [['two\nlines', 'x'], ['next']]],
    ['a quoted CRLF kept inside the field', '"a\r\nb"\r\n', [['a\r\nb']]],
    ['a quote inside an unquoted field is a character', 'a"b,c\n', [['a"b', 'c']]],
    ['text after a closing quote is kept', '"a"b,c\n', [['ab', 'c']]],
    [
      'URLhaus quoting',
      '"3412345","2026-11-01 10:00:00","http://1.2.3.4:8080/bins/x.sh","elf,mirai"\n',
      [['3412345', '2026-11-01 10:00:00', 'http://1.2.3.4:8080/bins/x.sh', 'elf,mirai']],
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => assert.deepEqual(records(text), expected));
  }

  it('counts the line breaks inside quoted fields', () => {
    const record = readCsvRecord('1,"a\nb\nc",2\nnext', 0, true);
    assert.deepEqual(record.fields, ['1', 'a\nb\nc', '2']);
    assert.equal(record.innerLineBreaks, 2);
    assert.equal(record.next, 12);
    assert.equal(record.unterminated, false);
  });

  it('marks a quote open at the end of the text, and stops at the line end when not spanning lines', () => {
    const text = '1,"open\n2,x\n';
    const spanning = readCsvRecord(text, 0, true);
    assert.equal(spanning.unterminated, true);
    assert.equal(spanning.next, text.length);
    const oneLine = readCsvRecord(text, 0, false);
    assert.deepEqual(oneLine, { fields: ['1', 'open'], next: 8, innerLineBreaks: 0, unterminated: true });
    assert.deepEqual(readCsvRecord(text, oneLine.next, false).fields, ['2', 'x']);
  });

  it('reads back what a writer quoting every field wrote', () => {
    const quote = (field: string) => `"${field.replace(/"/g, '""')}"`;
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('\n', '\r\n'),
        (rows, eol) => {
          const text = rows.map((row) => row.map(quote).join(',')).join(eol) + eol;
          assert.deepEqual(records(text), rows);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('always moves forward and ends inside the text, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('"', ',', '\n', '\r', 'a', ' ') }), fc.boolean(), (text, spanLines) => {
        for (let start = 0; start < text.length;) {
          const record = readCsvRecord(text, start, spanLines);
          assert.ok(record.next > start && record.next <= text.length);
          if (!spanLines) assert.equal(record.innerLineBreaks, 0);
          start = record.next;
        }
      }),
      { numRuns: 1000 },
    );
  });
});
