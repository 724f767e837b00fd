import type { Message } from "@ag-ui/core";

/** Why a message or tool call in history is not complete (D-TRUNC, D-RUN-ERROR, R-RUN-13). */
export type IncompleteReason =
  /** Opened and not yet closed (the run is still going). */
  | "open"
  /** The run ended with RUN_ERROR while it was open (D-RUN-ERROR). */
  | "abandoned"
  /** The source ended without a terminal event while it was open (D-TRUNC). */
  | "truncated";

export interface IncompleteItem {
  readonly kind: "message" | "tool-call";
  readonly id: string;
  readonly reason: IncompleteReason;
}

/** Who issued a stored encrypted value (D-ISSUER). Kept beside the messages, never inside them. */
export interface ValueIssuer {
  readonly subtype: "message" | "tool-call";
  readonly entityId: string;
  /** The producer identity the pipeline was created for; `undefined` when none was configured. */
  readonly issuer: string | undefined;
}

/**
 * The derived conversation state (operator (e)). Immutable: every change yields a new object;
 * unchanged messages keep their identity (structural sharing).
 *
 * `messages` are AG-UI 1.0 `Message` objects exactly as they will be sent back (reasoning
 * messages included, encrypted values stored on their message or tool call). Everything that is
 * not part of a message — incompleteness, issuers — lives beside them, because the message schemas
 * are closed (digest §22 Q17, D-ISSUER).
 */
export interface ReasoningHistory {
  readonly messages: readonly Message[];
  readonly incomplete: readonly IncompleteItem[];
  readonly issuers: readonly ValueIssuer[];
}
