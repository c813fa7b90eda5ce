/**
 * One benchmark case. `unitsPerOp` turns tinybench's operations per second into the rate a budget is
 * written in (URLs/s, entries/s): a Rice decode of 100,000 entries is one operation of 100,000 units.
 * A budget is a rate (`budgetPerSecond`), a time per unit (`budgetNsPerUnit`, e.g. per lookup) or a time
 * per operation (`budgetMsPerOp`, e.g. a cold start).
 */
export interface BenchCase {
  name: string;
  unit: string;
  unitsPerOp: number;
  fn: () => void | Promise<void>;
  budgetPerSecond?: number;
  budgetNsPerUnit?: number;
  budgetMsPerOp?: number;
}

/** A measured quantity that is not a time, such as resident bytes per stored prefix. */
export interface BenchFact {
  name: string;
  value: number;
  unit: string;
  /** The largest value docs/architecture.md allows. */
  budgetAtMost?: number;
}
