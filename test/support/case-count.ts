/**
 * How many cases a test of the mutation-tested suites goes through (a property's runs, the runs of a
 * long conversation): `n`, or under `npm run mutation` a fiftieth of it (at least 5). Stryker re-runs
 * every test that reaches a mutant, for each mutant, and the chain runner is reached by every test: at
 * full size one mutant of it costs a minute on 2 cores. Seeds are fixed, so the smaller run is the
 * first cases of the full one and its kills are reproducible. What only the full size shows (a
 * conversation past the history's eager limit, memory over 5,000 runs) is outside the mutated code.
 * `CASE_COUNT_SCALE` is set by test/support/mutation-setup.ts (Stryker's jest config only).
 */
export function caseCount(n: number): number {
  const scale = Number(process.env.CASE_COUNT_SCALE ?? 1);
  return scale >= 1 ? n : Math.max(5, Math.ceil(n * scale));
}
