/**
 * How many cases a property of the scoped suites runs: `n`, or under `npm run mutation` a tenth of it
 * (at least 5). Stryker re-runs every test that reaches a mutant, for each mutant, and the chain runner
 * is reached by every test: at full size one mutant of it costs a minute on 2 cores. The seed is fixed,
 * so the smaller run is the first cases of the full one, and its kills are reproducible.
 * `PROPERTY_RUNS_SCALE` is set by test/support/mutation-setup.ts (Stryker's jest config only).
 */
export function propertyRuns(n: number): number {
  const scale = Number(process.env.PROPERTY_RUNS_SCALE ?? 1);
  return scale >= 1 ? n : Math.max(5, Math.ceil(n * scale));
}
