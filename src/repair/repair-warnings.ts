import { typeOf } from "../core/errors";
import type { ReasoningWarning, StepContext } from "../core/types";

/**
 * The warnings `repairStream` emits, one per repair (D-WARN). Every one says what was changed and
 * why; those that lose content (a dropped delta, dropped metadata, a run cut short) are lossy and
 * cannot be silenced by `quiet` (R-VER-7). Messages name types, ids, counts and byte lengths only (D-REDACT).
 */
export const REPAIR_WARNING_CODES = {
  /** A CONTENT/END (or legacy continuation) for an item that is not open was dropped (R-REASON-9/10, R-STREAM-2). */
  REPAIRED_ORPHAN_DROPPED: "REPAIRED_ORPHAN_DROPPED",
  /** A START (or a chunk opening an item) for an item already open was dropped (R-REASON-10/11, R-STREAM-1). */
  REPAIRED_DUPLICATE_OPEN_DROPPED: "REPAIRED_DUPLICATE_OPEN_DROPPED",
  /** Items still open at RUN_FINISHED were closed by synthesized ENDs placed before it (R-REASON-13). */
  REPAIRED_CLOSED_AT_FINISH: "REPAIRED_CLOSED_AT_FINISH",
  /** The source ended inside a run: its open items were closed and a RUN_ERROR synthesized (D-TRUNC). Lossy. */
  REPAIRED_TRUNCATED_RUN: "REPAIRED_TRUNCATED_RUN",
  /** RUN_STARTED arrived inside a run: the unterminated run was closed like a truncated one (R-RUN-9). Lossy. */
  REPAIRED_NESTED_RUN: "REPAIRED_NESTED_RUN",
  /** An event outside any run (before RUN_STARTED, after the run ended) was dropped (R-RUN-1/8). Lossy. */
  REPAIRED_OUTSIDE_RUN_DROPPED: "REPAIRED_OUTSIDE_RUN_DROPPED",
} as const;

export type RepairWarningCode = keyof typeof REPAIR_WARNING_CODES;

/** A repair warning about `event` (or about the end of the source when `event` is undefined). */
export function repairWarning(
  code: RepairWarningCode,
  rule: string,
  event: unknown,
  ctx: StepContext,
  ids: readonly string[],
  message: string,
  lossy: boolean,
): ReasoningWarning {
  const w: { -readonly [K in keyof ReasoningWarning]: ReasoningWarning[K] } = {
    code,
    rule,
    message,
    eventType: event === undefined ? "<end of stream>" : typeOf(event),
    eventIndex: ctx.index,
    ids,
  };
  if (lossy) w.lossy = true;
  return w;
}
