// Jest setup for `npm run mutation` only (stryker.config.mjs): the scoped suites' properties run a
// tenth of their cases (propertyRuns), and a failing property stops at its first counterexample
// instead of shrinking it — a killed mutant needs no minimal example, and shrinking would cost
// more than the run.
import fc from "fast-check";

process.env.PROPERTY_RUNS_SCALE = "0.1";
fc.configureGlobal({ endOnFailure: true });
