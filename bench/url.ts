import { parseCanonicalUrl } from '../src/url/canonicalize.ts';
import { expressionsOf } from '../src/url/expressions.ts';
import { expressionHashString, prefix32 } from '../src/url/hash.ts';
import type { BenchCase } from './case.ts';
import type { FloorCase } from './floor.ts';

/** A fixed, varied corpus: subdomains, public suffixes, IP hosts, deep paths, queries, escapes. */
function sampleUrls(count: number): string[] {
  const hosts = [
    'www.example.com',
    'a.b.c.d.example.co.uk',
    'login.secure-bank.example.net',
    'cdn.static.example.org',
    'user.github.io',
    'testsafebrowsing.appspot.com',
    '192.168.10.20',
    'shop.example.de',
    'xn--bcher-kva.de',
    'mail.google.com',
  ];
  const paths = [
    '/',
    '/index.html',
    '/s/phishing.html',
    '/a/b/c/d/e/f.php',
    '/login',
    '/wp-admin/includes/x.php',
    '/download/setup.exe',
    '/%7Euser/page%20two.html',
    '/docs/2026/11/report.pdf',
    '/search',
  ];
  const queries = ['', '?q=safe+browsing', '?id=12345&session=abcdef', '?redirect=http%3A%2F%2Fevil.example%2F', ''];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const host = hosts[i % hosts.length]!;
    const path = paths[(i * 7) % paths.length]!;
    const query = queries[(i * 3) % queries.length]!;
    const scheme = i % 4 === 0 ? 'https' : 'http';
    urls.push(`${scheme}://${host}${path}${query}${i % 5 === 0 ? '#section' : ''}`);
  }
  return urls;
}

/** The client's hot path before any lookup: URL → canonical URL → expressions → SHA-256 and 4-byte prefix of each. */
function hashAllExpressions(url: string): number {
  let n = 0;
  for (const expression of expressionsOf(parseCanonicalUrl(url))) n ^= prefix32(expressionHashString(expression));
  return n;
}

/**
 * The client's URL pipeline against its floor: the SHA-256s alone of the same URLs' expressions, computed
 * beforehand. SHA-256 through node:crypto is most of the pipeline's time and what varies most with the
 * machine's speed on the day; docs/architecture.md asks the pipeline for at least half the floor's speed.
 */
export function urlBenchmarks(): FloorCase[] {
  const urls = sampleUrls(1000);
  const expressions = urls.flatMap((url) => expressionsOf(parseCanonicalUrl(url)));
  let sink = 0;
  const subject: BenchCase = {
    name: 'URL → all expression hashes (canonicalize + expressions + SHA-256)',
    unit: 'URLs',
    unitsPerOp: urls.length,
    fn: () => {
      for (const url of urls) sink += hashAllExpressions(url);
      if (sink === -1) throw new Error('unreachable: keeps the work observable');
    },
  };
  const floor: BenchCase = {
    name: `the SHA-256s alone of those URLs' expressions (${(expressions.length / urls.length).toFixed(1)} per URL), node:crypto`,
    unit: 'URLs',
    unitsPerOp: urls.length,
    fn: () => {
      for (const expression of expressions) sink += prefix32(expressionHashString(expression));
      if (sink === -1) throw new Error('unreachable: keeps the work observable');
    },
  };
  return [{ subject, floor, budgetOfFloor: 0.5 }];
}
