import { isIP } from 'node:net';
import { type CanonicalUrl, parseCanonicalUrl } from '../../../url/canonicalize.ts';
import { quotedExcerpt } from './excerpt.ts';
import { BadEntryError } from '../feed-error.ts';
import { realHost } from '../sources/real-host.ts';

/**
 * The one expression that names exactly what a canonical URL names: the full host with the full path and,
 * when it has parameters, the query — the first expression SB-6 lists for it (`expressionsOf(url)[0]`),
 * built directly so that a feed of millions of URLs does not pay for the other 29 and the Public Suffix
 * List. A URL without a path has the path `/` after SB-5, so a bare host names the whole host (`host/`).
 */
function canonicalExpression(url: CanonicalUrl): string {
  // An empty query (`/q?`) has no parameters; SB-6 builds no `?` expression for it either.
  return url.query === undefined || url.query === '' ? url.host + url.path : `${url.host}${url.path}?${url.query}`;
}

/**
 * A feed URL as its canonical expression. Throws InvalidUrlError for text that names no web page and
 * BadEntryError for a host no browser could visit: SB-5 canonicalizes any text into some URL, so that
 * `try again later` would otherwise become the entry `try%20again%20later/`.
 */
export function urlExpression(url: string): string {
  const canonical = parseCanonicalUrl(url);
  realHost(canonical.host);
  return canonicalExpression(canonical);
}

/** A scheme such as `http://` in front of what should be an expression. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * A line already in expression form (`host/path`), canonicalized anyway — `EXAMPLE.com/a/../b` becomes
 * `example.com/b` — so that it hashes the way clients hash their URLs' expressions. An expression has no
 * scheme; one with a scheme is refused, as it means the feed was configured with the wrong format.
 */
export function expressionLineExpression(text: string): string {
  const trimmed = text.trim();
  if (SCHEME.test(trimmed)) {
    throw new BadEntryError('an expression is host/path without a scheme; use the format "urls" for a list of URLs');
  }
  const hostEnd = trimmed.search(/[/?#]/);
  const host = hostEnd < 0 ? trimmed : trimmed.slice(0, hostEnd);
  return urlExpression(bracketedHost(host) + trimmed.slice(host.length));
}

/**
 * A host as a URL writes it: a bare IPv6 address bracketed. Any other colon would be read as a port
 * (`2001:db8::1` as host 2001, `a.example:8080` as a.example), so it is refused rather than guessed at.
 */
function bracketedHost(host: string): string {
  const bracketed = isIP(host) === 6 ? `[${host}]` : host;
  if (bracketed.replace(/^\[[0-9a-fA-F:.]*\]$/, '').includes(':')) {
    throw new BadEntryError(`${quotedExcerpt(host)} is not a host: a colon here would be read as a port`);
  }
  return bracketed;
}

/**
 * Characters that make a token more than a host: a path, query, fragment or user name. A URL parser would
 * quietly drop or move them (`a.example@b.example` is b.example), so they are refused rather than guessed at.
 */
const NOT_IN_A_HOST = /[/\\?#@\s]/;

/**
 * The canonical host (SB-5) of a bare host name as hosts files and domain lists give it, not yet checked
 * to be a real host: hosts files name the machine itself with single words such as `localhost`.
 */
export function canonicalBareHost(host: string): string {
  if (NOT_IN_A_HOST.test(host)) {
    throw new BadEntryError(`${quotedExcerpt(host)} is not a bare host name`);
  }
  return parseCanonicalUrl(`http://${bracketedHost(host)}/`).host;
}

/** A canonical host as the expression for the whole host, `host/`; BadEntryError when it is no real host. */
export function wholeHostExpression(canonicalHost: string): string {
  return `${realHost(canonicalHost)}/`;
}

/** A bare host name (hosts files, domain lists) as the expression for the whole host, `host/`. */
export function hostExpression(host: string): string {
  return wholeHostExpression(canonicalBareHost(host));
}
