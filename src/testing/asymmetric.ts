import type { ReasoningErrorCode } from "../core/errors";
import type { ReasoningWarning } from "../core/types";
import type { ReasoningWarningCode } from "../core/warning-codes";
import { readEach } from "../core/arguments";
import { codeArgument, holds, kitError, listArgument, objectArgument } from "./arguments";
import { deepMatch, show, type AsymmetricMatcher } from "./deep-match";

/** The fields of a `ReasoningProtocolError` a test may pin besides its code. */
export interface ExpectedFailure {
  readonly rule?: string;
  readonly eventIndex?: number;
  readonly eventType?: string;
  readonly ids?: readonly string[];
}

/** The fields of a `ReasoningWarning` a test may pin besides its code. */
export type ExpectedWarning = Partial<Omit<ReasoningWarning, "code" | "message">>;

/**
 * The expected error of a marble diagram's `#`: matches a `ReasoningProtocolError` with `code` and
 * whichever of `rule`, `eventIndex`, `eventType`, `ids` are given. An asymmetric matcher of its own
 * (no global `expect` needed): jest's and vitest's `toEqual` and the kit's `createTestScheduler` honour it.
 *
 * `expectObservable(out).toBe("a #", values, protocolErrorWith("ORPHAN_CONTENT", { eventIndex: 1 }))`
 */
export function protocolErrorWith(code: ReasoningErrorCode, expected: ExpectedFailure = {}): AsymmetricMatcher {
  // A misspelt code would match nothing, and with `.not` anything: refused.
  codeArgument(code, "protocolErrorWith", "ERROR_CODES");
  const given = defined(expected, "protocolErrorWith");
  return fieldsMatcher(called("protocolErrorWith", code, given), { name: "ReasoningProtocolError", code, ...given });
}

/**
 * A warning value for a `warnings$` diagram: matches a warning with `code` and the fields given
 * (its `message` is prose, so it is not pinned). `warningWith("UNKNOWN_ENTITY", { ids: ["x"] })`.
 */
export function warningWith(code: ReasoningWarningCode, expected: ExpectedWarning = {}): AsymmetricMatcher {
  // A misspelt code would match nothing, and with `.not` anything: refused.
  codeArgument(code, "warningWith", "WARNING_CODES");
  const given = defined(expected, "warningWith");
  return fieldsMatcher(called("warningWith", code, given), { code, ...given });
}

/** Matches an object holding each of `fields` (deeply); prints as the call that made it. */
function fieldsMatcher(shown: string, fields: Record<string, unknown>): AsymmetricMatcher {
  return {
    $$typeof: Symbol.for("jest.asymmetricMatcher"),
    // A value whose reads throw (a revoked proxy) is no match, never the read's error.
    asymmetricMatch: (actual: unknown) =>
      holds(
        actual,
        (a) =>
          typeof a === "object" &&
          a !== null &&
          Object.entries(fields).every(([key, value]) => deepMatch((a as Record<string, unknown>)[key], value)),
      ),
    toString: () => shown,
    toAsymmetricMatcher: () => shown,
  } as AsymmetricMatcher;
}

/** `warningWith("UNKNOWN_ENTITY", { "ids": ["x"] })`: how a matcher prints in a failure. */
function called(name: string, code: string, given: Record<string, unknown>): string {
  const fields = Object.keys(given).length > 0 ? `, ${show(given).replace(/\s+/g, " ")}` : "";
  return `${name}(${JSON.stringify(code)}${fields})`;
}

/**
 * `caller`'s expected fields without those `undefined` (an option left out pins nothing): an object,
 * each field readable and each list without holes (a failure message prints them), else a `TypeError`.
 */
export function defined(fields: object | undefined, caller: string): Record<string, unknown> {
  const given = objectArgument(fields, caller, "expected fields");
  for (const [key, value] of Object.entries(given)) {
    if (typeof value !== "object" || value === null) continue;
    if (holds(value, Array.isArray)) listArgument(value as unknown[], caller, `expected ${key}`, "any");
    else if (!holds(value, readEach)) throw kitError(`${caller}'s expected ${key} cannot be read (a read of it threw)`);
  }
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
}
