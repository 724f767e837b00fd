import { TestScheduler } from "rxjs/testing";
import type { ReasoningWarning } from "../core/types";

/**
 * A `TestScheduler` wired to jest's deep equality (`toEqual`), so marble expectations print a
 * readable diff when they fail.
 */
export function createTestScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
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
