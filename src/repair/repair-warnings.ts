import { typeOf } from "../core/errors";
import type { ReasoningWarning, StepContext } from "../core/types";
import { catalogued, type ReasoningWarningCode, type WarningRule } from "../core/warning-codes";

/**
 * The warnings `repairStream` emits, one per repair (D-WARN, catalogued in WARNING_CODES). Every one says
 * what was changed and why; those that lose content (a dropped delta, dropped metadata, a run cut short) are
 * lossy and cannot be silenced by `quiet` (R-VER-7). Messages name types, ids, counts and byte lengths only
 * (D-REDACT).
 */
export type RepairWarningCode = Extract<ReasoningWarningCode, `REPAIRED_${string}`>;

/** A repair warning about `event` (or about the end of the source when `event` is undefined). */
export function repairWarning(
  code: RepairWarningCode,
  rule: string,
  event: unknown,
  ctx: StepContext,
  ids: readonly string[],
  message: string,
  contentLost?: boolean,
): ReasoningWarning {
  // The rule is the one the repaired event broke (a family's, read from a table): the catalogue lists
  // every one (test/api/warning-codes.test.ts checks each emitted warning against it).
  return catalogued(
    code,
    rule as WarningRule<RepairWarningCode>,
    { message, eventType: event === undefined ? "<end of stream>" : typeOf(event), eventIndex: ctx.index, ids },
    contentLost,
  );
}
