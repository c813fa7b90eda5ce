// A URL the server's threat lists hold, for the line `sbkit serve` prints to try the server with: a
// check of it answers UNSAFE. The lists keep full hashes only (feeds/sources/source-states.ts), which cannot be
// turned back into a URL; the entries written in the configuration itself (`entries` sources) can, and
// each candidate is confirmed against what the list serves now, since an operator's edit may have
// removed it. No URL rather than one that would answer SAFE.

import { InvalidUrlError } from '../url/invalid-url.ts';
import { urlExpressions } from '../url/expressions.ts';
import { expressionHashString } from '../url/hash.ts';
import type { ListCatalog } from './catalog.ts';
import type { ListConfig } from './config/config.ts';

/** Entries tried per source: enough to pass a few removed by edits, few enough that start-up does not notice. */
const TRIED_PER_SOURCE = 20;

/** The first entry of the configuration's threat lists, in their order, as a URL that the list serves; undefined when none is. */
export function listedUrl(lists: readonly ListConfig[], catalog: ListCatalog): string | undefined {
  for (const list of lists) {
    const history = catalog.get(list.name);
    if (history === undefined || list.threatTypes.length === 0) continue;
    const snapshot = history.current();
    for (const source of list.sources) {
      if (source.kind !== 'entries') continue;
      for (const entry of source.entries.slice(0, TRIED_PER_SOURCE)) {
        const url = asUrl(entry.trim());
        // SB-6: a check looks up every expression of the URL; one the list holds makes it UNSAFE.
        if (url !== undefined && expressionsOf(url).some((expression) => snapshot.serves(expressionHashString(expression)))) return url;
      }
    }
  }
  return undefined;
}

/** An entry as a URL to check: itself when it is one, else a host with or without a path, as http. */
function asUrl(entry: string): string | undefined {
  if (entry === '' || entry.startsWith('#') || /\s/.test(entry)) return undefined;
  return /^https?:\/\//i.test(entry) ? entry : `http://${entry.replace(/^\*\./, '')}`;
}

function expressionsOf(url: string): string[] {
  try {
    return urlExpressions(url);
  } catch (error) {
    if (error instanceof InvalidUrlError) return [];
    throw error;
  }
}
