import { TestScheduler } from "rxjs/testing";
import type { ReasoningWarning } from "../core/types";
import { kitError } from "./arguments";
import { assertDeepMatch } from "./deep-match";

/**
 * A `TestScheduler` whose frames are compared by `assertDeepEqual`: by default the kit's own
 * `assertDeepMatch` (`toEqual`'s semantics, asymmetric matchers honoured, no test framework or global
 * `expect` needed). Pass your runner's assertion for its diff: `createTestScheduler((a, e) => expect(a).toEqual(e))`
 * under jest or vitest, `assert.deepStrictEqual` under `node:test` (which knows no asymmetric matchers).
 */
export function createTestScheduler(
  assertDeepEqual: (actual: unknown, expected: unknown) => void = assertDeepMatch,
): TestScheduler {
  // Else the first assertion would fail inside RxJS ("assertDeepEqual is not a function").
  if (typeof assertDeepEqual !== "function")
    throw kitError("createTestScheduler expects an assertion function (actual, expected) => void");
  return new TestScheduler(assertDeepEqual);
}

/**
 * Collects warnings for assertions: pass `collector.onWarning` as an operator option, then assert
 * on `collector.codes()` or `collector.warnings`.
 */
export function collectWarnings(): {
  readonly warnings: ReasoningWarning[];
  readonly onWarning: (w: ReasoningWarning) => void;
  codes(): string[];
} {
  const warnings: ReasoningWarning[] = [];
  return { warnings, onWarning: (w) => warnings.push(w), codes: () => warnings.map((w) => w.code) };
}
