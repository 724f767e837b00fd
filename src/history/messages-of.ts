import type { Message } from "@ag-ui/core";
import type { ReasoningHistory } from "./types";
import { checkHistory } from "../core/arguments";
import { JsonShape } from "../storage/json-shape";

/**
 * The history's messages as a new, mutable `Message[]` of copies that share nothing with the
 * (immutable) history, for APIs typed `Message[]`: `agent.setMessages(messagesOf(history))`. Every
 * encrypted value stays on its message (for one producer: `toRunInputMessages`, D-ISSUER).
 * O(conversation): call it when handing the conversation over, not per event.
 */
export function messagesOf(history: ReasoningHistory): Message[] {
  // The check's copies of its lists: a proxy may answer a second read of a list's length otherwise.
  const { messages } = checkHistory(history, "messagesOf");
  try {
    return structuredClone(messages) as Message[];
  } catch {
    // A history built by hand (a proxy, a throwing getter, a cycle, a function) or nested deeper than
    // structuredClone recurses, which the pipeline carries: copied without recursion, a fault named by
    // its message, never by the error thrown, which may quote content (D-REDACT).
    const shape = new JsonShape("messagesOf");
    return messages.map((message, i) => shape.json(message, `/messages/${i}`) as Message);
  }
}
