// `SBKIT_BENCH_SMOKE=1 node --import tsx bench/run.ts`: every benchmark runs, once or a few times, on a
// hundredth of its data, and nothing is written. It measures nothing; it proves that the bench still
// runs (test/bench/run.test.ts), so that it cannot rot between two `npm run bench`.

/** True in a smoke run. */
export const SMOKE = process.env.SBKIT_BENCH_SMOKE === '1';

/** A count of data (prefixes, hashes, clients): as given, or a hundredth of it in a smoke run. */
export function sized(count: number): number {
  return SMOKE ? Math.max(1, Math.round(count / 100)) : count;
}
