import type { Message } from "@ag-ui/core";

/**
 * What identifies a message in a history (D-HISTORY-IDS): its id together with whether it is a tool
 * message. A tool result may share its id with the message holding its call (D-TOOL-RESULT-ID:
 * LangGraph Python's unstreamed tool call), so an id alone names up to two messages.
 */
export function messageKey(message: Pick<Message, "id" | "role">): string {
  return message.role === "tool" ? `tool:${message.id}` : `message:${message.id}`;
}
