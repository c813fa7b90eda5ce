// A strict TypeScript consumer of @sbkit/client installed alone: the test type-checks it against the
// shipped declarations, which must name no module the package does not hold.
import { type CheckResult, SafeBrowsingClient, SbkitError } from '@sbkit/client';
import { SafeBrowsingClient as BrowserClient } from '@sbkit/client/browser';
import { type ClientEvent, ListsNotCurrentError } from '@sbkit/client/client';
import { expressionHash, hashPrefix, InvalidUrlError, urlExpressions } from '@sbkit/client/url';

export async function verdict(url: string, onEvent: (event: ClientEvent) => void): Promise<CheckResult['verdict']> {
  const client = new SafeBrowsingClient({ server: 'http://127.0.0.1:8080', mode: 'nostorage', onEvent });
  try {
    return (await client.checkUrl(url)).verdict;
  } finally {
    await client.close();
  }
}

export const browserClient = (): BrowserClient => new BrowserClient({ server: 'http://127.0.0.1:8080' });

export const prefixes = (url: string): string[] => urlExpressions(url).map((expression) => hashPrefix(expressionHash(expression)));

export function codeOf(error: unknown): string | undefined {
  if (error instanceof InvalidUrlError) return error.reason;
  if (error instanceof ListsNotCurrentError) return error.reason;
  return error instanceof SbkitError ? error.code : undefined;
}
