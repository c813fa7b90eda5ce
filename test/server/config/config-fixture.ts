// What the configuration tests share: the folder relative paths start at, the lists of an example
// configuration, and how a refusal is checked (a ConfigError that names the bad field by its path in
// the JSON, and whose message starts with that path and says what is wrong).

import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/server/config/config-error.ts';

/** The configuration file's folder in these tests. */
export const BASE = '/etc/sbkit';

/** The lists of the example configuration: a threat list with every kind of source, and a likely-safe one. */
export function exampleLists(): Record<string, unknown>[] {
  return [
    {
      name: 'se-4b',
      threatTypes: ['SOCIAL_ENGINEERING'],
      hashLength: 4,
      description: 'phishing',
      sources: [
        { file: 'feeds/openphish.txt', format: 'urls' },
        { url: 'https://urlhaus.abuse.ch/downloads/csv_recent/', format: 'csv', refreshMinutes: 30 },
        { entries: ['evil.example/'] },
      ],
    },
    { name: 'gc-32b', likelySafeTypes: ['GENERAL_BROWSING'], sources: [{ file: '/data/top.csv', format: 'domains', csvColumn: 1 }] },
  ];
}

/** Asserts that `parse` throws a ConfigError naming `field` (`lists[0].sources[1].url`), its message matching `message`. */
export function assertRefused(parse: () => unknown, field: string, message: RegExp): void {
  assert.throws(parse, (error: unknown) => {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.field, field);
    assert.match(error.message, message);
    assert.ok(error.message.startsWith(`${field}: `), error.message);
    return true;
  });
}
