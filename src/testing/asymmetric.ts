import type { ReasoningErrorCode } from "../core/errors";
import type { ReasoningWarning } from "../core/types";

/** The fields of a `ReasoningProtocolError` a test may pin besides its code. */
export interface ExpectedFailure {
  readonly rule?: string;
  readonly eventIndex?: number;
  readonly eventType?: string;
  readonly ids?: readonly string[];
}

/** The fields of a `ReasoningWarning` a test may pin besides its code. */
export type ExpectedWarning = Partial<Omit<ReasoningWarning, "code" | "message">>;

/** The subset of jest's / vitest's global `expect` this kit uses. */
interface ExpectWithObjectContaining {
  objectContaining(fields: Record<string, unknown>): unknown;
}

/**
 * The expected error of a marble diagram's `#`: matches a `ReasoningProtocolError` with `code` and
 * whichever of `rule`, `eventIndex`, `eventType`, `ids` are given.
 *
 * `expectObservable(out).toBe("a #", values, protocolError("ORPHAN_CONTENT", { eventIndex: 1 }))`
 */
export function protocolError(code: ReasoningErrorCode, expected: ExpectedFailure = {}): unknown {
  return globalExpect().objectContaining({ name: "ReasoningProtocolError", code, ...defined(expected) });
}

/**
 * A warning value for a `warnings$` diagram: matches a warning with `code` and the fields given
 * (its `message` is prose, so it is not pinned). `warningWith("UNKNOWN_ENTITY", { ids: ["x"] })`.
 */
export function warningWith(code: string, expected: ExpectedWarning = {}): unknown {
  return globalExpect().objectContaining({ code, ...defined(expected) });
}

function defined(fields: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

function globalExpect(): ExpectWithObjectContaining {
  const e = (globalThis as { expect?: ExpectWithObjectContaining }).expect;
  if (typeof e?.objectContaining !== "function") {
    throw new Error(
      "agui-reasoning/testing: protocolError()/warningWith() need a global `expect` (jest, or vitest with globals)",
    );
  }
  return e;
}
