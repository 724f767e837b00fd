import { dropValues } from "../history/drop-values";
import type { ReasoningHistory } from "../history/types";

/** A history without its encrypted values, and the ids of the messages and tool calls that held one. */
export interface StrippedHistory {
  readonly history: ReasoningHistory;
  /** Message and tool-call ids whose value is gone, in history order. Empty: `history` is the input itself. */
  readonly lost: readonly string[];
}

/**
 * `history` minus every `encryptedValue` (on messages and on tool calls) and minus the issuer
 * records of those values (D-ISSUER: a record describes a held value). Unchanged messages keep
 * their identity; nothing is mutated.
 */
export function stripValues(history: ReasoningHistory): StrippedHistory {
  const lost: string[] = [];
  const messages = history.messages.map((message) => dropValues(message, () => true, lost));
  if (lost.length === 0) return { history, lost };
  return { history: { messages, incomplete: history.incomplete, issuers: [], durations: history.durations }, lost };
}
