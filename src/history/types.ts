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
  /**
   * `true` on the record of a value stored on a tool message (absent otherwise): a tool message may
   * share its id with a message of another role (D-TOOL-RESULT-ID), and a message is its id together
   * with whether it is a tool message (D-HISTORY-IDS), so each of the two has its own record.
   */
  readonly toolMessage?: true;
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
  /** When each reasoning message and span started and ended (D-DURATION), in the order they started. */
  readonly durations: readonly ReasoningDuration[];
}

/**
 * When one reasoning message, or the span holding reasoning messages, started and ended (D-DURATION).
 * Kept beside the messages (never inside one, never in run input). An instant comes from the event's
 * own `timestamp` where it carries one (R-EVT-3: informative, never used to order), else from the
 * pipeline's `scheduler.now()` when the event arrived, and is then marked `observed`. An item still
 * open, abandoned or truncated has a start and no end.
 */
export interface ReasoningDuration {
  /** `"message"`: a reasoning message (`id` its message id); `"span"`: a REASONING_START…END span. */
  readonly kind: "message" | "span";
  readonly id: string;
  /** Milliseconds since the epoch, by the protocol's convention. */
  readonly startedAt: number;
  /** Whether `startedAt` is `scheduler.now()` at arrival (the event had no `timestamp`). */
  readonly startObserved: boolean;
  /** Absent while open, and for an abandoned or truncated item. */
  readonly endedAt?: number;
  /** Whether `endedAt` is `scheduler.now()` at arrival (present with `endedAt`). */
  readonly endObserved?: boolean;
  /** A message's span: the id of the span open when the message started, if any. */
  readonly spanId?: string;
  /** A span's legacy `THINKING_START` title (D-THINK-TITLE), for display. */
  readonly title?: string;
}
