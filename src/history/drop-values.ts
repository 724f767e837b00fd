import type { Message, ToolCall } from "@ag-ui/core";
import { toolCallsOf } from "./conversation";
import { hasValue } from "./issuers";

/** Which stored values to drop: the subtype of the entity holding one, and its id. */
export type DropValue = (subtype: "message" | "tool-call", id: string) => boolean;

/**
 * `message` without the encrypted values `drop` selects, on the message and on its tool calls. The
 * ids whose value was dropped are appended to `lost`, in order. `drop` is asked once per value held.
 * Nothing is mutated, and `message` itself is returned when nothing was dropped (one place for run
 * input (D-ISSUER) and storage (R-REASON-19) to take values out).
 */
export function dropValues(message: Message, drop: DropValue, lost: string[]): Message {
  const own = hasValue(message) && drop("message", message.id);
  const calls = toolCallsOf(message);
  const dropped = calls?.map((call) => hasValue(call) && drop("tool-call", call.id));
  const onCalls = dropped !== undefined && dropped.includes(true);
  if (!own && !onCalls) return message;
  const copy: Record<string, unknown> = { ...message };
  if (own) {
    delete copy.encryptedValue;
    lost.push(message.id);
  }
  if (onCalls) copy.toolCalls = calls!.map((call, i) => (dropped[i] ? withoutValue(call, lost) : call));
  return copy as unknown as Message;
}

function withoutValue(call: ToolCall, lost: string[]): ToolCall {
  lost.push(call.id);
  const copy: ToolCall = { ...call };
  delete copy.encryptedValue;
  return copy;
}
