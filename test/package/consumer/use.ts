// A strict TypeScript consumer of the installed package: the test type-checks it against the shipped
// declarations with moduleResolution nodenext and bundler, and it must compile cleanly.
import {
  canonicalizeUrl,
  type CheckResult,
  ClientOptionError,
  SafeBrowsingClient,
  type SafeBrowsingClientOptions,
  SbkitError,
  TransportError,
  urlExpressions,
} from 'sbkit';
import {
  ConfigError,
  createServer,
  ListenError,
  demoCatalog,
  FeedLists,
  LoadControl,
  readServerConfig,
  type SafeBrowsingServer,
} from 'sbkit/server';
import { expressionHash, hashPrefix, InvalidUrlError, type InvalidUrlReason } from 'sbkit/url';

export async function check(urls: readonly string[]): Promise<CheckResult[]> {
  const options: SafeBrowsingClientOptions = { server: 'http://127.0.0.1:8080', mode: 'nostorage', timeoutMs: 5_000 };
  const client = new SafeBrowsingClient(options);
  try {
    return await client.checkUrls(urls);
  } finally {
    await client.close();
  }
}

export function prefixes(url: string): string[] {
  const canonical: string = canonicalizeUrl(url);
  return urlExpressions(canonical).map((expression) => hashPrefix(expressionHash(expression)));
}

export function reasonOf(error: unknown): InvalidUrlReason | 'option' | undefined {
  if (error instanceof InvalidUrlError) return error.reason;
  if (error instanceof ClientOptionError) return 'option';
  return undefined;
}

export async function serveDemo(): Promise<{ server: SafeBrowsingServer; url: string }> {
  const loadControl = await LoadControl.create({ settings: { trustedProxies: ['10.0.0.0/8'] } });
  const server = createServer({ catalog: demoCatalog(), loadControl, port: 0 });
  return { server, url: await server.listen() };
}

export async function serveFeeds(configFile: string): Promise<SafeBrowsingServer | string> {
  try {
    const config = await readServerConfig(configFile);
    const feeds = await FeedLists.start(config, (report) => report.errors.length);
    return createServer({ catalog: feeds.catalog, apiKeys: config.apiKeys, reload: () => feeds.reload() });
  } catch (error) {
    if (error instanceof ConfigError) return `${error.field}: ${error.problem}`;
    throw error;
  }
}

export function verdicts(results: readonly CheckResult[]): ('SAFE' | 'UNSAFE' | 'UNKNOWN')[] {
  return results.map((result) => result.verdict);
}

/** Why a URL went unchecked: the error's code, typed, where the verdict says so. */
export function notChecked(result: CheckResult): string | undefined {
  return result.verdict === 'UNKNOWN' ? result.error.code : undefined;
}

/** What a caller branches on: the stable code, whichever entry point the class came from. */
export function codeOf(error: unknown): string | undefined {
  if (error instanceof TransportError && error.kind === 'timeout') return error.code;
  if (error instanceof ListenError || error instanceof ConfigError) return error.code;
  return error instanceof SbkitError ? error.code : undefined;
}
