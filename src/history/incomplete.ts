import type { IncompleteItem, IncompleteReason } from "./types";
import type { Conversation } from "./conversation";

/**
 * The `incomplete` list (D-TRUNC, D-RUN-ERROR): messages and tool calls of the history that are not
 * closed, and why. Kept beside the messages because the message schemas are closed (digest §22 Q17).
 * The list holds only the items opened and not closed, so it stays short; its edits are O(length).
 */

type Kind = IncompleteItem["kind"];

/** `kind` `id` is open (again): listed as "open", in place if it was listed already (e.g. abandoned). */
export function listOpen(items: readonly IncompleteItem[], kind: Kind, id: string): readonly IncompleteItem[] {
  const item: IncompleteItem = { kind, id, reason: "open" };
  const at = find(items, kind, id);
  const next = items.slice();
  if (at < 0) next.push(item);
  else next[at] = item;
  return next;
}

/** `kind` `id` closed: no longer listed. */
export function unlist(items: readonly IncompleteItem[], kind: Kind, id: string): readonly IncompleteItem[] {
  const at = find(items, kind, id);
  if (at < 0) return items;
  const next = items.slice();
  next.splice(at, 1);
  return next;
}

/**
 * Every item this pipeline still has open gets `reason` (RUN_ERROR → "abandoned", end of source →
 * "truncated"), and nothing is open any more. Items listed by a seed history keep their reason.
 */
export function endOpenItems(conversation: Conversation, reason: IncompleteReason): Conversation {
  const { openMessages, openToolCalls, removedMessages, removedToolCalls } = conversation.index;
  removedMessages.clear();
  removedToolCalls.clear();
  if (openMessages.size === 0 && openToolCalls.size === 0) return conversation;
  const items = conversation.incomplete.map((item) =>
    item.reason === "open" && (item.kind === "message" ? openMessages : openToolCalls).has(item.id)
      ? { kind: item.kind, id: item.id, reason }
      : item,
  );
  openMessages.clear();
  openToolCalls.clear();
  return conversation.withIncomplete(items);
}

/** Keeps only the items whose message / tool call the conversation still holds (after a snapshot). */
export function keepHeld(conversation: Conversation): Conversation {
  const { position, toolCallHolder } = conversation.index;
  const held = (item: IncompleteItem): boolean =>
    item.kind === "message" ? position.has(item.id) : toolCallHolder.has(item.id);
  const items = conversation.incomplete;
  return items.every(held) ? conversation : conversation.withIncomplete(items.filter(held));
}

function find(items: readonly IncompleteItem[], kind: Kind, id: string): number {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.id === id && item.kind === kind) return i;
  }
  return -1;
}
