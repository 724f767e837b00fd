import type { ReasoningWarning, StepContext } from "../core/types";

/**
 * The warnings `downcastToThinking` emits. Each reports content a 0.x consumer will not get, so
 * each is lossy: a custom sink always receives it and `quiet` does not silence it (R-VER-6/7,
 * R-REASON-19). Messages name types, ids, JSON paths and byte lengths only (D-REDACT).
 */
export const DOWNCAST_WARNING_CODES = {
  /** A span or message id has no place in the 0.x shape: the item's identity is lost (R-VER-6, R-DEP-5). */
  DOWNCAST_ID_DROPPED: "DOWNCAST_ID_DROPPED",
  /** A REASONING_ENCRYPTED_VALUE has no 0.x form: the value is dropped (R-REASON-19). */
  DOWNCAST_VALUE_DROPPED: "DOWNCAST_VALUE_DROPPED",
  /** Metadata has no place in the 0.x shapes (except the title D-THINK-TITLE moved there): dropped (R-VER-6). */
  DOWNCAST_METADATA_DROPPED: "DOWNCAST_METADATA_DROPPED",
} as const;

export type DowncastWarningCode = keyof typeof DOWNCAST_WARNING_CODES;

export function downcastWarning(
  code: DowncastWarningCode,
  rule: string,
  eventType: string,
  ctx: StepContext,
  ids: readonly string[],
  path: string,
  message: string,
): ReasoningWarning {
  return { code, rule, message, eventType, eventIndex: ctx.index, ids, path, lossy: true };
}
