import { protocolError, type ReasoningErrorCode, type ReasoningProtocolError } from "../core/errors";
import type { StepContext } from "../core/types";

/**
 * Builds the error of a rejected event: always names the source index, the event type, the rule
 * and the ids involved. `detail` must hold types, fields and counts only (D-REDACT).
 */
export function rejectEvent(
  code: ReasoningErrorCode,
  rule: string,
  ctx: StepContext,
  event: unknown,
  detail: string,
  ids: readonly (string | undefined)[] = [],
): ReasoningProtocolError {
  return protocolError(
    code,
    rule,
    event,
    ctx,
    ids.filter((id): id is string => id !== undefined),
    detail,
  );
}
