/**
 * One benchmark case. `unitsPerOp` turns tinybench's operations per second into the rate a budget is
 * written in (URLs/s, entries/s): a Rice decode of 100,000 entries is one operation of 100,000 units.
 */
export interface BenchCase {
  name: string;
  unit: string;
  unitsPerOp: number;
  fn: () => void;
  /** The DESIGN.md budget in units per second, when there is one. */
  budgetPerSecond?: number;
}
