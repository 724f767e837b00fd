// @ts-check
// Mutation testing (`npm run mutation`, outside CI: it takes tens of minutes on 2 cores). Stryker mutates the
// files under `mutate`, runs the jest suites below against each mutant and reports what survived; the score and
// the survivors accepted are in docs/mutation.md. `coverageAnalysis: "perTest"` runs only the tests that reach a
// mutant.
//
// The scope is in three parts, each with the suites that pin it (checked with jest --coverage): every test of
// the package reaches the chain runner, so one run of all the suites against every mutant costs each runner
// mutant the whole differential suite (hours on 2 shared cores). etc/mutation.mjs runs the parts one after the
// other (MUTATION_PART) and adds their scores up. A part's suites are a subset of the union, so a mutant
// another part's suites would kill counts as survived here: the split can only lower the score.
const PARTS = {
  // The chain runner: its loop, the fused operators' RxJS adapter, stageOperator and runStage.
  runner: {
    mutate: ["src/core/chain-runner.ts", "src/core/fused-operators.ts", "src/core/stage-operator.ts"],
    tests: [
      "test/core/chain-runner.test.ts",
      "test/core/fused-operators.test.ts",
      "test/pipeline/teardown.test.ts",
      // runStage's check of its own argument.
      "test/api/arguments.test.ts",
      // The paced publication (D-PACE): ChainRunner.settle, runFused's end.
      "marbles/paced-history.marble.test.ts",
    ],
  },
  // The delta lane, against the differential suite (lane or steps: the same events, histories, warnings).
  lane: {
    mutate: ["src/pipeline/delta-lane.ts"],
    // The paced publication (D-PACE) reaches the deferring lane (`defers`, `held`, `unsettled`, `settle`).
    tests: ["test/pipeline/delta-lane.test.ts", "marbles/paced-history.marble.test.ts"],
  },
  // src/discipline/ without its tables (families.ts: module-level data, static mutants only).
  discipline: {
    mutate: ["src/discipline/**/*.ts", "!src/discipline/families.ts"],
    // history-ways-in: the stage's refusal of an initialMessages whose read throws (D-REDACT).
    tests: [
      "marbles/verify-discipline.marble.test.ts",
      "test/hostile/across-runs.test.ts",
      "test/api/history-ways-in.test.ts",
    ],
  },
};

const part = process.env.MUTATION_PART;
if (part !== undefined && !(part in PARTS)) throw new Error(`MUTATION_PART must be one of ${Object.keys(PARTS)}`);
const chosen = part === undefined ? Object.values(PARTS) : [PARTS[/** @type {keyof typeof PARTS} */ (part)]];
const name = part ?? "all";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "jest",
  coverageAnalysis: "perTest",
  // Static mutants (module-level tables such as src/discipline/families.ts) would run every test per mutant;
  // they are left out (listed as ignored in the report).
  ignoreStatic: true,
  // Error and warning prose (details, messages) is not asserted word for word, by design: D-REDACT's tests
  // scan it for content instead. String mutants would only measure that; codes and rules are checked through
  // the tables and the tests' assertions on `code`/`rule`, which other mutants reach.
  mutator: { excludedMutations: ["StringLiteral"] },
  concurrency: 1,
  mutate: chosen.flatMap((p) => p.mutate),
  jest: {
    projectType: "custom",
    configFile: "jest.config.ts",
    config: {
      testMatch: [...new Set(chosen.flatMap((p) => p.tests))].map((t) => `<rootDir>/${t}`),
      // A fiftieth of the cases, and properties do not shrink (test/support/mutation-setup.ts).
      setupFiles: ["<rootDir>/test/support/mutation-setup.ts"],
    },
    enableFindRelatedTests: false,
  },
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}/mutation.html` },
  jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  // A second run re-tests only the mutants whose code or covering tests changed.
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${name}.json`,
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  timeoutMS: 10000,
};
