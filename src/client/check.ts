import { parseCanonicalUrl, formatCanonicalUrl } from '../url/canonicalize.ts';
import { expressionsOf } from '../url/expressions.ts';
import { hexOfHashString, prefix32 } from '../url/hash-string.ts';
import type { ExpressionHasher } from '../url/expression-hasher.ts';
import type { LocalCache } from './local-cache.ts';
import type { SearchResponse } from './transport/transport.ts';
import { isEnforced, type FullHashMatch } from '../lists/threat-details.ts';
import type { ThreatAttributeName, ThreatTypeName } from '../lists/threat-types.ts';
import { type CheckError, checkErrorOf } from './client-errors.ts';

/** SB-8: one request carries at most 30 prefixes, decoys included. */
export const MAX_PREFIXES_PER_SEARCH = 30;

/**
 * What a check found: UNSAFE (an enforced threat matched), SAFE (checked, and no threat matched), or
 * UNKNOWN (the URL could not be checked: no answer from the server, lists that cannot vouch, any other
 * failure; the result's `error` says why). An UNKNOWN is never a SAFE: treat it as policy says.
 */
export type Verdict = 'SAFE' | 'UNSAFE' | 'UNKNOWN';

/** The procedures' verdicts: UNSURE (RealTimeCheck only, SB-8) hands the URL to LocalThreatListCheck. */
type ProcedureVerdict = Verdict | 'UNSURE';

/** Who answered a check: the memory cache, the local lists, or the server. */
export type AnsweredBy = 'cache' | 'database' | 'server';

/** One threat a URL matched: which of its expressions, under which full hash, of what type. */
export interface Threat {
  /** The SB-6 expression of the URL whose hash matched, e.g. `evil.example/login`. */
  expression: string;
  /** The matching full hash, hex. */
  fullHash: string;
  /** What the server says the threat is. */
  threatType: ThreatTypeName;
  /** CANARY (never enforced) and FRAME_ONLY (enforced only in frames), when the server sets them. */
  attributes: ThreatAttributeName[];
  /** False for CANARY details, and for FRAME_ONLY ones outside frames: reported, not acted on. */
  enforced: boolean;
}

export interface CheckOutcome {
  verdict: ProcedureVerdict;
  /** The URL after SB-5 canonicalization. */
  canonicalUrl: string;
  /** Every threat the URL matched, enforced or not. */
  threats: Threat[];
  /** Who gave the verdict: the memory cache, the local lists, or the server; nobody for UNKNOWN. */
  answeredBy: AnsweredBy | undefined;
  /** Why the verdict is UNKNOWN, or the failed search behind an UNSURE. */
  error?: CheckError;
}

/** `hashes.search` (or v4 `fullHashes.find`) for 4-byte prefixes; rejects on any failure. */
type SearchHashes = (prefixes: number[]) => Promise<SearchResponse>;

interface LocalLists {
  /** SB-8 RealTimeCheck step 3: does the global cache of likely-safe hashes hold this full hash? */
  inGlobalCache(fullHash: string): boolean;
  /**
   * SB-8 LocalThreatListCheck: does any local threat list hold this hash (at the list's width)? `prefix`
   * is its first four bytes, which the caller has already.
   */
  inThreatLists(fullHash: string, prefix: number): boolean;
  /**
   * inThreatLists of many prefixes at once (`found[i]` becomes 1 or 0 for `prefixes[i]`), in the order the
   * lists read fastest; present only when every threat list holds 4-byte prefixes, so that a prefix
   * alone decides.
   */
  inThreatListsByPrefix?: (prefixes: Uint32Array, found: Uint8Array) => void;
}

export interface CheckContext {
  cache: LocalCache;
  lists: LocalLists;
  search: SearchHashes;
  now: () => number;
  /**
   * Why the local threat lists cannot vouch that a URL they do not hold is safe (never downloaded, out of
   * date, not published), or undefined when they can. While they cannot, a URL they would answer SAFE is
   * UNKNOWN, and in real-time mode the global cache does not send URLs to them but to the server.
   */
  listsProblem: CheckError | undefined;
  /** Random decoy prefixes to add to each search (SB-8 allows them); 0 turns them off. */
  decoyPrefixes: number;
  random: () => number;
  /** The URL is a frame's, where FRAME_ONLY threats count. */
  inFrame?: boolean;
}

/** Steps 1, 2 and 4 of SB-8: expressions, their full hashes and 4-byte prefixes. */
export interface PreparedUrl {
  canonicalUrl: string;
  expressions: string[];
  hashes: string[];
  prefixes: number[];
}

/**
 * SB-8 steps 1, 2 and 4, done once per check; throws InvalidUrlError at once, before any hash. A
 * synchronous hasher (Node's) gives the result as it is; an asynchronous one (WebCrypto) a promise.
 */
export function prepareUrl(url: string, hasher: ExpressionHasher): PreparedUrl | Promise<PreparedUrl> {
  const canonical = parseCanonicalUrl(url);
  const expressions = expressionsOf(canonical);
  const canonicalUrl = formatCanonicalUrl(canonical);
  const hashes = hasher.hashAll(expressions);
  if (Array.isArray(hashes)) return { canonicalUrl, expressions, hashes, prefixes: prefixesOf(hashes) };
  return hashes.then((done) => ({ canonicalUrl, expressions, hashes: done, prefixes: prefixesOf(done) }));
}

function prefixesOf(hashes: readonly string[]): number[] {
  const prefixes = new Array<number>(hashes.length);
  for (let i = 0; i < hashes.length; i++) prefixes[i] = prefix32(hashes[i]!);
  return prefixes;
}

/** The threats among full hashes that equal one of the URL's expression hashes. */
function threatsIn(matches: Iterable<FullHashMatch>, prepared: PreparedUrl, inFrame: boolean): Threat[] {
  const threats: Threat[] = [];
  for (const match of matches) {
    const index = prepared.hashes.indexOf(match.fullHash);
    if (index < 0) continue;
    for (const detail of match.details) {
      threats.push({
        expression: prepared.expressions[index]!,
        fullHash: hexOfHashString(match.fullHash),
        threatType: detail.threatType,
        attributes: detail.attributes,
        enforced: isEnforced(detail, inFrame),
      });
    }
  }
  return threats;
}

const isUnsafe = (threats: Threat[]) => threats.some((t) => t.enforced);

/**
 * SB-8 step 5: consults the local cache for each distinct prefix. Live entries take their prefix out
 * of what must be asked; their full hashes that equal an expression hash are threats.
 */
function consultCache(ctx: CheckContext, prepared: PreparedUrl): { remaining: Set<number>; threats: Threat[] } {
  const { remaining, fullHashes } = ctx.cache.consult(prepared.prefixes, ctx.now());
  return { remaining, threats: threatsIn(fullHashes, prepared, ctx.inFrame ?? false) };
}

/** Adds decoys up to the request limit and shuffles, so that position does not give the real ones away. */
function withDecoys(ctx: CheckContext, prefixes: Set<number>): number[] {
  const all = new Set(prefixes);
  const target = Math.min(MAX_PREFIXES_PER_SEARCH, prefixes.size + ctx.decoyPrefixes);
  // Bounded: a random source that repeats itself gives fewer decoys, never a hang.
  for (let attempt = 0; all.size < target && attempt < 4 * MAX_PREFIXES_PER_SEARCH; attempt++) {
    all.add(Math.floor(ctx.random() * 2 ** 32) >>> 0);
  }
  const out = [...all];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(ctx.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * What a procedure still needs from the server: the prefixes to ask about, the verdict should the
 * search fail, and the threats the cache already showed.
 */
interface PendingSearch {
  prepared: PreparedUrl;
  prefixes: Set<number>;
  onError: 'UNSURE' | 'UNKNOWN';
  earlierThreats: Threat[];
}

/** A check done as far as it goes without the server: finished, or waiting for a search. */
export type CheckStep = { outcome: CheckOutcome } | { pending: PendingSearch };

/**
 * SB-8 steps 8–9 (and their counterparts in the other procedures): the verdict from the server's answer,
 * or the procedure's fallback when the search failed.
 */
function judge(ctx: CheckContext, pending: PendingSearch, answer: SearchResponse | CheckError): CheckOutcome {
  const { prepared, earlierThreats } = pending;
  if (answer instanceof Error)
    return { verdict: pending.onError, canonicalUrl: prepared.canonicalUrl, threats: earlierThreats, answeredBy: undefined, error: answer };
  const threats = [...earlierThreats, ...threatsIn(answer.fullHashes, prepared, ctx.inFrame ?? false)];
  return { verdict: isUnsafe(threats) ? 'UNSAFE' : 'SAFE', canonicalUrl: prepared.canonicalUrl, threats, answeredBy: 'server' };
}

/**
 * SB-8 steps 6–9 for any number of checks at once: one search for the prefixes all of them still need
 * (SB-8 leaves it to the client how prefixes go to the server), its answer cached for every real prefix
 * asked (decoys are not cached), then each check judged on that answer as if it had asked alone.
 */
export async function finishChecks(ctx: CheckContext, steps: readonly CheckStep[]): Promise<CheckOutcome[]> {
  const prefixes = new Set<number>();
  for (const step of steps) if ('pending' in step) for (const prefix of step.pending.prefixes) prefixes.add(prefix);
  let answer: SearchResponse | CheckError | undefined;
  if (prefixes.size > 0) {
    try {
      answer = await ctx.search(withDecoys(ctx, prefixes));
      ctx.cache.store(prefixes, answer, ctx.now());
    } catch (err) {
      answer = checkErrorOf(err);
    }
  }
  return steps.map((step) => ('outcome' in step ? step.outcome : judge(ctx, step.pending, answer!)));
}

async function finishCheck(ctx: CheckContext, step: CheckStep): Promise<CheckOutcome> {
  return (await finishChecks(ctx, [step]))[0]!;
}

function answeredLocally(prepared: PreparedUrl, threats: Threat[], answeredBy: AnsweredBy): { outcome: CheckOutcome } {
  return { outcome: { verdict: isUnsafe(threats) ? 'UNSAFE' : 'SAFE', canonicalUrl: prepared.canonicalUrl, threats, answeredBy } };
}

/**
 * LocalThreatListCheck's answer for a URL the lists do not hold: SAFE while they are current, UNKNOWN
 * when they cannot vouch for it (SB-8 assumes lists kept current; a list never downloaded holds nothing).
 */
function notListed(ctx: CheckContext, canonicalUrl: string, threats: Threat[]): { outcome: CheckOutcome } {
  if (ctx.listsProblem === undefined || isUnsafe(threats))
    return { outcome: { verdict: isUnsafe(threats) ? 'UNSAFE' : 'SAFE', canonicalUrl, threats, answeredBy: 'database' } };
  return { outcome: { verdict: 'UNKNOWN', canonicalUrl, threats, answeredBy: undefined, error: ctx.listsProblem } };
}

/**
 * SB-8 RealTimeCheck up to its search: global cache (a hit is UNSURE), then local cache. The global
 * cache sends URLs to the threat lists, so it is consulted only while they are current; until then its
 * URLs go to the server like any other.
 */
export function realTimeStep(ctx: CheckContext, prepared: PreparedUrl): CheckStep {
  if (ctx.listsProblem === undefined && prepared.hashes.some((hash) => ctx.lists.inGlobalCache(hash))) {
    return { outcome: { verdict: 'UNSURE', canonicalUrl: prepared.canonicalUrl, threats: [], answeredBy: 'database' } };
  }
  const { remaining, threats } = consultCache(ctx, prepared);
  if (isUnsafe(threats) || remaining.size === 0) return answeredLocally(prepared, threats, 'cache');
  return { pending: { prepared, prefixes: remaining, onError: 'UNSURE', earlierThreats: threats } };
}

/** SB-8 LocalThreatListCheck up to its search: local cache, then the local threat lists. */
export function localThreatListStep(ctx: CheckContext, prepared: PreparedUrl): CheckStep {
  // An empty cache answers for no prefix: all of them go to the lists, without the sets of a consultation
  // (the usual case of a bulk check that has found nothing yet).
  if (ctx.cache.size === 0) return listsStep(ctx, prepared, undefined, []);
  const { remaining, threats } = consultCache(ctx, prepared);
  if (isUnsafe(threats)) return answeredLocally(prepared, threats, 'cache');
  return listsStep(ctx, prepared, remaining, threats);
}

/**
 * SB-8 LocalThreatListCheck up to its search for many URLs at once, when the local cache is empty (the
 * usual case of a bulk check) and the lists can be asked by prefix alone: the prefixes of all the URLs
 * are looked up together, in the order the lists read fastest (store/prefix-set.ts hasEach), and a URL
 * none of whose prefixes is listed is SAFE, answered by the database, as localThreatListStep answers
 * it. A URL with a listed prefix is prepared again and takes localThreatListStep. Until the look-up only
 * canonical URLs and prefixes are held, not expressions and hashes: what a bulk check keeps alive is
 * what the garbage collector copies. Throws InvalidUrlError, as prepareUrl does.
 */
export function localThreatListStepsInBulk(
  ctx: CheckContext,
  urls: readonly string[],
  hashAllNow: (expressions: readonly string[]) => string[],
  inThreatListsByPrefix: (prefixes: Uint32Array, found: Uint8Array) => void,
): CheckStep[] {
  const canonicalUrls = new Array<string>(urls.length);
  const ends = new Uint32Array(urls.length);
  let prefixes = new Uint32Array(urls.length * 8);
  let total = 0;
  for (let i = 0; i < urls.length; i++) {
    const canonical = parseCanonicalUrl(urls[i]!);
    const hashes = hashAllNow(expressionsOf(canonical));
    canonicalUrls[i] = formatCanonicalUrl(canonical);
    if (total + hashes.length > prefixes.length) {
      const larger = new Uint32Array(2 * (total + hashes.length));
      larger.set(prefixes.subarray(0, total));
      prefixes = larger;
    }
    for (const hash of hashes) prefixes[total++] = prefix32(hash);
    ends[i] = total;
  }
  const found = new Uint8Array(total);
  inThreatListsByPrefix(prefixes.subarray(0, total), found);
  const steps = new Array<CheckStep>(urls.length);
  for (let i = 0, start = 0; i < urls.length; start = ends[i++]!) {
    let listed = false;
    for (let k = start; k < ends[i]! && !listed; k++) listed = found[k] === 1;
    steps[i] = listed
      ? localThreatListStep(ctx, prepareUrl(urls[i]!, { hashAll: hashAllNow }) as PreparedUrl)
      : notListed(ctx, canonicalUrls[i]!, []);
  }
  return steps;
}

/** LocalThreatListCheck's look-up in the lists of the prefixes the cache left (`undefined`: all of them). */
function listsStep(ctx: CheckContext, prepared: PreparedUrl, remaining: Set<number> | undefined, threats: Threat[]): CheckStep {
  const { hashes, prefixes } = prepared;
  let listed: Set<number> | undefined;
  for (let i = 0; i < hashes.length; i++) {
    const prefix = prefixes[i]!;
    if ((remaining === undefined || remaining.has(prefix)) && ctx.lists.inThreatLists(hashes[i]!, prefix))
      (listed ??= new Set()).add(prefix);
  }
  if (listed === undefined)
    return remaining?.size === 0 ? answeredLocally(prepared, threats, 'cache') : notListed(ctx, prepared.canonicalUrl, threats);
  return { pending: { prepared, prefixes: listed, onError: 'UNKNOWN', earlierThreats: threats } };
}

/** SB-8 NoStorageCheck up to its search: the local cache only. */
export function noStorageStep(ctx: CheckContext, prepared: PreparedUrl): CheckStep {
  const { remaining, threats } = consultCache(ctx, prepared);
  if (isUnsafe(threats) || remaining.size === 0) return answeredLocally(prepared, threats, 'cache');
  return { pending: { prepared, prefixes: remaining, onError: 'UNKNOWN', earlierThreats: threats } };
}

/**
 * SB-8 RealTimeCheck → SAFE, UNSAFE or UNSURE. A global-cache hit is UNSURE (the local threat lists
 * decide); otherwise cache, then server, whose failure is UNSURE as well.
 */
export function realTimeCheck(ctx: CheckContext, prepared: PreparedUrl): Promise<CheckOutcome> {
  return finishCheck(ctx, realTimeStep(ctx, prepared));
}

/**
 * SB-8 LocalThreatListCheck → SAFE, UNSAFE or UNKNOWN: cache, then the local threat lists; only prefixes
 * the lists hold go to the server. Where SB-8 answers SAFE "on any error", this answers UNKNOWN: the URL
 * was not checked. So are URLs the lists do not hold while the lists cannot vouch for them.
 */
export function localThreatListCheck(ctx: CheckContext, prepared: PreparedUrl): Promise<CheckOutcome> {
  return finishCheck(ctx, localThreatListStep(ctx, prepared));
}

/** SB-8 NoStorageCheck → SAFE, UNSAFE or UNKNOWN: cache, then every remaining prefix to the server; failure is UNKNOWN, not SB-8's SAFE. */
export function noStorageCheck(ctx: CheckContext, prepared: PreparedUrl): Promise<CheckOutcome> {
  return finishCheck(ctx, noStorageStep(ctx, prepared));
}
