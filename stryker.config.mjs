// @ts-check
// Mutation testing (`npm run mutation`, outside CI: it takes tens of minutes on 2 cores). Stryker mutates the
// files under `mutate`, runs the jest suites below against each mutant and reports what survived; the score and
// the survivors accepted are in docs/mutation.md. `coverageAnalysis: "perTest"` runs only the tests that reach a
// mutant. The suites are the narrowest set that covers the scoped files (checked with jest --coverage).
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
  // The chain runner (its loop, the fused operators' RxJS adapter and runStage), the delta lane, and
  // src/discipline/ without its tables (families.ts: module-level data, static mutants only).
  mutate: [
    "src/core/chain-runner.ts",
    "src/core/fused-operators.ts",
    "src/core/stage-operator.ts",
    "src/pipeline/delta-lane.ts",
    "src/discipline/**/*.ts",
    "!src/discipline/families.ts",
  ],
  jest: {
    projectType: "custom",
    configFile: "jest.config.ts",
    config: {
      testMatch: [
        "<rootDir>/test/core/chain-runner.test.ts",
        "<rootDir>/test/core/fused-operators.test.ts",
        "<rootDir>/marbles/verify-discipline.marble.test.ts",
        "<rootDir>/test/pipeline/delta-lane.test.ts",
        "<rootDir>/test/pipeline/paths-agree.test.ts",
        "<rootDir>/test/pipeline/teardown.test.ts",
        "<rootDir>/test/hostile/across-runs.test.ts",
      ],
      // A fiftieth of the cases, and properties do not shrink (test/support/mutation-setup.ts).
      setupFiles: ["<rootDir>/test/support/mutation-setup.ts"],
    },
    enableFindRelatedTests: false,
  },
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // A second run re-tests only the mutants whose code or covering tests changed.
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  timeoutMS: 10000,
};
