// LC-1..3: who is asking. A known search-engine crawler (crawler-user-agents, tag `search-engine`, plus
// patterns an operator adds), an assumed bot (anything that is not a known browser: no User-Agent, a
// User-Agent that isbot recognises, or one that does not even claim to be a browser), or a browser.
// Results are kept in a bounded LRU keyed by User-Agent, since matching ~200 patterns per request
// would cost more than the rest of a search.

import crawlerUserAgents from 'crawler-user-agents';
import { isbot } from 'isbot';
import { BoundedMap } from '../../store/bounded-map.ts';

export type AgentClass = { kind: 'crawler'; crawler: string } | { kind: 'bot' } | { kind: 'browser' };

/** The crawler patterns of crawler-user-agents tagged as search engines (LC-2's "known web crawler"). */
export function searchEngineCrawlerPatterns(): string[] {
  return (crawlerUserAgents as { pattern: string; tags?: string[] }[])
    .filter((entry) => entry.tags?.includes('search-engine'))
    .map((entry) => entry.pattern);
}

/** Every browser User-Agent begins so (Chromium, Firefox, Safari, Edge: "Mozilla/5.0 …"; old Opera: "Opera/…"). */
const BROWSER_PREFIX = /^(?:Mozilla|Opera)\//;
const DEFAULT_CACHE_ENTRIES = 10_000;
/** Longer User-Agents are classified each time, not remembered: the cache's memory stays bounded. */
const MAX_CACHED_AGENT_LENGTH = 512;

export class AgentClassifier {
  private readonly patterns: { source: string; regexp: RegExp }[];
  private readonly anyCrawler: RegExp;
  private readonly cache: BoundedMap<string, AgentClass>;

  /**
   * `extraCrawlerPatterns` are regular expressions (as crawler-user-agents writes them) of further
   * crawlers to treat as search engines. Throws SyntaxError for a pattern that is not a regular expression.
   */
  constructor(extraCrawlerPatterns: readonly string[] = [], cacheEntries = DEFAULT_CACHE_ENTRIES) {
    const sources = [...searchEngineCrawlerPatterns(), ...extraCrawlerPatterns];
    this.patterns = sources.map((source) => ({ source, regexp: new RegExp(source, 'i') }));
    this.anyCrawler = new RegExp(sources.map((source) => `(?:${source})`).join('|'), 'i');
    this.cache = new BoundedMap(cacheEntries);
  }

  classify(userAgent: string | undefined): AgentClass {
    if (userAgent === undefined || userAgent.trim() === '') return { kind: 'bot' };
    if (userAgent.length > MAX_CACHED_AGENT_LENGTH) return this.match(userAgent);
    return this.cache.getOrCompute(userAgent, () => this.match(userAgent));
  }

  private match(userAgent: string): AgentClass {
    if (this.anyCrawler.test(userAgent)) {
      // The pattern that matched names the crawler, for the metrics; LC-5's "this crawler" is ip+agent.
      const pattern = this.patterns.find(({ regexp }) => regexp.test(userAgent))!;
      return { kind: 'crawler', crawler: pattern.source };
    }
    if (isbot(userAgent) || !BROWSER_PREFIX.test(userAgent)) return { kind: 'bot' };
    return { kind: 'browser' };
  }
}
