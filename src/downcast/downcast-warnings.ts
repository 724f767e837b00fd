import type { ReasoningWarning, StepContext } from "../core/types";
import { catalogued, type ReasoningWarningCode, type WarningRule } from "../core/warning-codes";

/**
 * The warnings `downcastToThinking` emits (catalogued in WARNING_CODES). Each reports content a 0.x
 * consumer will not get, so each is lossy: a custom sink always receives it and `quiet` does not
 * silence it (R-VER-6/7, R-REASON-19). Messages name types, ids, JSON paths and byte lengths only (D-REDACT).
 */
export type DowncastWarningCode = Extract<ReasoningWarningCode, `DOWNCAST_${string}`>;

export function downcastWarning<C extends DowncastWarningCode>(
  code: C,
  rule: WarningRule<C>,
  eventType: string,
  ctx: StepContext,
  ids: readonly string[],
  path: string,
  message: string,
): ReasoningWarning {
  return catalogued(code, rule, { message, eventType, eventIndex: ctx.index, ids, path });
}
