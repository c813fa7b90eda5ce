import fc from 'fast-check';
import type { ThreatTypeName } from '../../../src/lists/threat-types.ts';
import { ListCatalog } from '../../../src/server/catalog.ts';
import { catalogFullHashes, type FullHashSource } from '../../../src/server/api/full-hash-source.ts';
import type { Caller } from '../../../src/server/api/dispatch.ts';
import { Submissions } from '../../../src/server/operator/submissions.ts';
import { DEFAULT_API_SETTINGS } from '../../../src/server/api/settings.ts';
import { ListHistory } from '../../../src/server/lists/list-history.ts';
import { urlExpressions } from '../../../src/url/expressions.ts';
import { expressionHashBytes, expressionHashString, prefix32 } from '../../../src/url/hash.ts';

/** A full-hash source that counts its searches and the prefixes of each. */
export interface CountingSource extends FullHashSource {
  calls: (readonly number[])[];
}

export function counting(source: FullHashSource): CountingSource {
  const calls: (readonly number[])[] = [];
  return {
    calls,
    find: (prefixes) => {
      calls.push([...prefixes]);
      return source.find(prefixes);
    },
  };
}

/** Few hosts and paths, so that URLs of one request share expressions and lists hold some of them. */
const HOSTS = ['a.example', 'b.a.example', 'c.b.a.example', 'other.test', '192.0.2.7'];
const PATHS = ['/', '/x', '/x/y.html', '/x/y.html?q=1', '/z/'];
export const URL_POOL = HOSTS.flatMap((host) => PATHS.map((path) => `http://${host}${path}`));
const EXPRESSION_POOL = [...new Set(URL_POOL.flatMap((url) => urlExpressions(url)))];

/** Threat lists as ListCatalog takes them, by name: threat types and expressions. */
export interface ListSpec {
  name: string;
  threatTypes: ThreatTypeName[];
  expressions: string[];
}

export function catalogOf(lists: readonly ListSpec[]): ListCatalog {
  return new ListCatalog(
    lists.map(({ name, threatTypes, expressions }) => {
      const history = new ListHistory({ name, hashLength: 4, threatTypes, likelySafeTypes: [], description: '' }, { keep: 2 });
      history.publish(Buffer.concat(expressions.map((expression) => expressionHashBytes(expression))));
      return history;
    }),
  );
}

const subset = () => fc.subarray(EXPRESSION_POOL, { maxLength: 12 });

/** Some SB-11 lists and one of the operator's own, holding expressions of the pool's URLs. */
export const poolLists = fc.tuple(subset(), subset(), subset(), subset(), subset()).map(([se, mw, mwb, uws, corp]): ListSpec[] => [
  { name: 'se-4b', threatTypes: ['SOCIAL_ENGINEERING'], expressions: se },
  { name: 'mw-4b', threatTypes: ['MALWARE'], expressions: mw },
  { name: 'mwb-4b', threatTypes: ['MALWARE'], expressions: mwb },
  { name: 'uws-4b', threatTypes: ['UNWANTED_SOFTWARE'], expressions: uws },
  { name: 'corp-4b', threatTypes: ['SOCIAL_ENGINEERING', 'POTENTIALLY_HARMFUL_APPLICATION'], expressions: corp },
]);

/** The model: the threat types of the lists that hold any of the URL's expressions. */
export function modelThreatTypes(lists: readonly ListSpec[], url: string): Set<ThreatTypeName> {
  const expressions = urlExpressions(url);
  return new Set(lists.filter((list) => list.expressions.some((e) => expressions.includes(e))).flatMap((list) => list.threatTypes));
}

/** Full hashes from the catalog, as a server without upstream searches them. */
export const ownSource = (catalog: ListCatalog) => catalogFullHashes(catalog, DEFAULT_API_SETTINGS);

/**
 * A source that knows what no list here holds, as a proxy's upstream does (listed since the last copy,
 * or only in Google's real-time search): these expressions with these threat types, its answers holding
 * `cacheDurationMs`.
 */
export function upstreamSource(listed: Readonly<Record<string, ThreatTypeName[]>>, cacheDurationMs: number): FullHashSource {
  const known = Object.entries(listed).map(([expression, types]) => ({
    fullHash: expressionHashString(expression),
    details: types.map((threatType) => ({ threatType, attributes: [] })),
  }));
  return {
    find: async (prefixes) => ({ fullHashes: known.filter(({ fullHash }) => prefixes.includes(prefix32(fullHash))), cacheDurationMs }),
  };
}

/** A caller for answers that record none (every RPC but Web Risk's CreateSubmission). */
export const NO_CALLER: Caller = { submissions: new Submissions(), client: '192.0.2.1' };

/** A change to one list of a catalog: a publication, or another instance's snapshot adopted, as a shared store does. */
export type ListChange = { publish: string; content: number } | { adopt: string; content: number };

/** Changes to the lists `names`, each to one of `contents` (its index). */
export function listChanges(names: readonly string[], contents: number): fc.Arbitrary<ListChange>[] {
  const change = { content: fc.nat(contents - 1) };
  return [fc.record({ publish: fc.constantFrom(...names), ...change }), fc.record({ adopt: fc.constantFrom(...names), ...change })];
}

/** Makes `change` to `lists`; `another()` is a catalog like it, the other instance whose snapshot is adopted. */
export function playListChange(lists: ListCatalog, another: () => ListCatalog, change: ListChange, contents: readonly Uint8Array[]): void {
  if ('publish' in change) {
    lists.get(change.publish)!.publish(contents[change.content]!);
    return;
  }
  const other = another().get(change.adopt)!;
  other.publish(contents[change.content]!);
  const history = lists.get(change.adopt)!;
  history.adopt(other.current(), history.keptIds());
}
