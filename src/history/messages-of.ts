import type { Message } from "@ag-ui/core";
import type { ReasoningHistory } from "./types";

/**
 * The history's messages as a new, mutable `Message[]` of copies, for APIs typed `Message[]`, e.g.
 * `agent.setMessages(messagesOf(history))`. `history.messages` is `readonly` because histories are
 * immutable and share unchanged messages with the ones before them; the copies here share nothing
 * with the history, so whatever the receiver does to them never changes a published history.
 *
 * Every encrypted value stays on its message: use `toRunInputMessages(history, { producer })` for what
 * goes back to one producer (D-ISSUER). Costs O(conversation) per call: call it when handing the
 * conversation over (after a run, when restoring one), not per event.
 */
export function messagesOf(history: ReasoningHistory): Message[] {
  return structuredClone(history.messages) as Message[];
}
