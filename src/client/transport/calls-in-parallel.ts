/**
 * `call` for every item, at most `limit` at a time, the results in the order of the items; rejects with
 * the first failure (calls under way then finish unread, and no more start). Web Risk asks one list,
 * one prefix, per request: a search of 30 prefixes must not open 30 connections at once.
 */
export async function callsInParallel<T, R>(items: readonly T[], limit: number, call: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await call(items[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
