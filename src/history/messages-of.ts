import type { Message } from "@ag-ui/core";
import type { ReasoningHistory } from "./types";
import { checkHistory } from "../core/arguments";

/**
 * The history's messages as a new, mutable `Message[]` of copies that share nothing with the
 * (immutable) history, for APIs typed `Message[]`: `agent.setMessages(messagesOf(history))`. Every
 * encrypted value stays on its message (for one producer: `toRunInputMessages`, D-ISSUER).
 * O(conversation): call it when handing the conversation over, not per event.
 */
export function messagesOf(history: ReasoningHistory): Message[] {
  checkHistory(history, "messagesOf");
  return structuredClone(history.messages) as Message[];
}
