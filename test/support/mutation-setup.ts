// Jest setup for `npm run mutation` only (stryker.config.mjs): the scoped suites go through a fiftieth
// of their cases (caseCount), and a failing property stops at its first counterexample instead of
// shrinking it — a killed mutant needs no minimal example, and shrinking would cost more than the run.
import fc from "fast-check";

process.env.CASE_COUNT_SCALE = "0.02";
fc.configureGlobal({ endOnFailure: true });
