// Jest setup for `npm run mutation` only (stryker.config.mjs): the scoped suites go through a fiftieth
// of their cases (caseCount), and a failing property stops at its first counterexample instead of
// shrinking it — a killed mutant needs no minimal example, and shrinking would cost more than the run.
import fc from "fast-check";
import { config } from "rxjs";

process.env.CASE_COUNT_SCALE = "0.02";
fc.configureGlobal({ endOnFailure: true });

// A mutant that drops one of the package's own error callbacks lets an error reach RxJS's unhandled-error
// report, which throws it from a timer and crashes Stryker's worker. Nobody received the error, so the
// tests that expect it fail and kill the mutant; without such a test it survives, as it should.
config.onUnhandledError = () => {};
