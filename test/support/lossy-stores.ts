import type { Message } from "@ag-ui/core";

/**
 * What chat-UI message stores do to encrypted values (D-KEEPER): each gives the application's copy of a
 * message list as such a store would send it back, never touching the messages given. And the values a
 * list carries, read back (`valueOf`, `callValueOf`).
 */
export type Store = (messages: readonly Message[]) => Message[];

/** A copy of `target` without its `encryptedValue`. */
export const withoutValue = <T extends object>(target: T): T => {
  const copy = { ...target } as T & { encryptedValue?: string };
  delete copy.encryptedValue;
  return copy;
};

/** What assistant-ui does: tool calls come back without their values. */
export const dropsToolCallValues: Store = (messages) =>
  messages.map((m) =>
    m.role === "assistant" && m.toolCalls ? { ...m, toolCalls: m.toolCalls.map(withoutValue) } : { ...m },
  );

/** An application that stores text only: every value goes. */
export const textOnly: Store = (messages) => dropsToolCallValues(messages).map(withoutValue);

/** The value a list's message `id` carries (what a store kept, or a request carries), if any. */
export const valueOf = (messages: readonly Message[], id: string): string | undefined =>
  (messages.find((m) => m.id === id) as { encryptedValue?: string } | undefined)?.encryptedValue;

/** The value tool call `callId` of message `messageId` carries, if any. */
export const callValueOf = (messages: readonly Message[], messageId: string, callId: string): string | undefined => {
  const message = messages.find((m) => m.id === messageId) as
    { toolCalls?: Array<{ id: string; encryptedValue?: string }> } | undefined;
  return message?.toolCalls?.find((c) => c.id === callId)?.encryptedValue;
};
