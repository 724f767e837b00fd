import { ReasoningProtocolError, truncateId, typeOf, type ReasoningErrorCode } from "../core/errors";
import type { StepContext } from "../core/types";

/**
 * A verification failure about `event` (the digest's FAIL). Details name types, ids, roles and
 * counts only, never a delta (D-REDACT).
 */
export function violation(
  code: ReasoningErrorCode,
  rule: string,
  event: unknown,
  ctx: StepContext,
  ids: readonly string[],
  detail: string,
): ReasoningProtocolError {
  return new ReasoningProtocolError({ code, rule, eventIndex: ctx.index, eventType: typeOf(event), ids, detail, event });
}

/** An id (or role, or owner) quoted for a detail sentence; long ids are truncated. */
export function quote(id: string): string {
  return `'${truncateId(id)}'`;
}

/** Who owns an item, for a detail sentence. */
export function ownerText(owner: string | undefined): string {
  return owner === undefined ? "the parent agent" : `subagent ${quote(owner)}`;
}
