import type { Message, ToolCall } from "@ag-ui/core";
import { toolCallsOf } from "../history/conversation";
import { hasValue } from "../history/issuers";
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
  const messages = history.messages.map((message) => withoutValues(message, lost));
  if (lost.length === 0) return { history, lost };
  return { history: { messages, incomplete: history.incomplete, issuers: [] }, lost };
}

function withoutValues(message: Message, lost: string[]): Message {
  const own = hasValue(message);
  const calls = toolCallsOf(message);
  const onCalls = calls !== undefined && calls.some(hasValue);
  if (!own && !onCalls) return message;
  const copy: Record<string, unknown> = { ...message };
  if (own) {
    delete copy.encryptedValue;
    lost.push(message.id);
  }
  if (onCalls) copy.toolCalls = calls!.map((call) => withoutCallValue(call, lost));
  return copy as unknown as Message;
}

function withoutCallValue(call: ToolCall, lost: string[]): ToolCall {
  if (!hasValue(call)) return call;
  lost.push(call.id);
  const copy: ToolCall = { ...call };
  delete copy.encryptedValue;
  return copy;
}
