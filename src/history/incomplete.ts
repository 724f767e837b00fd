import type { IncompleteItem, IncompleteReason } from "./types";
import { kindTable, type Conversation } from "./conversation";
import { spaceOf, Table } from "./table";

/**
 * The `incomplete` list (D-TRUNC, D-RUN-ERROR): messages and tool calls of the history that are not
 * closed, and why. Kept beside the messages because the message schemas are closed (digest §22 Q17).
 *
 * Every START lists an item and every END unlists one, and a hostile stream opens thousands (up to
 * `maxOpenItems` per run, and abandoned items of earlier runs stay listed while their message is
 * held): a copied array made that O(list) per START/END — quadratic over a stream (issue 12,
 * finding 2). The list is a `Table` keyed by id in its kind's space: an edit costs O(log32 n), an unlisted
 * item leaves a hole squeezed out later (amortized O(1)).
 */

type Kind = IncompleteItem["kind"];

/**
 * This pipeline opened `kind` `id` (a START): it is open, no longer removed by a snapshot, and listed
 * as "open", in place if it was listed already (e.g. abandoned). One version for all three.
 */
export function opened(conversation: Conversation, kind: Kind, id: string): Conversation {
  const { incomplete, openMessages, openToolCalls, removedMessages, removedToolCalls } = conversation.parts;
  const listed = incomplete.put(id, { kind, id, reason: "open" }, spaceOf(kind));
  return kind === "message"
    ? conversation.with({
        incomplete: listed,
        openMessages: openMessages.put(id, id),
        removedMessages: removedMessages.remove(id),
      })
    : conversation.with({
        incomplete: listed,
        openToolCalls: openToolCalls.put(id, id),
        removedToolCalls: removedToolCalls.remove(id),
      });
}

/** The open `kind` `id` closed (an END): no longer open nor listed. One version for both. */
export function closed(conversation: Conversation, kind: Kind, id: string): Conversation {
  const { incomplete, openMessages, openToolCalls } = conversation.parts;
  const unlisted = incomplete.remove(id, spaceOf(kind));
  return kind === "message"
    ? conversation.with({ incomplete: unlisted, openMessages: openMessages.remove(id) })
    : conversation.with({ incomplete: unlisted, openToolCalls: openToolCalls.remove(id) });
}

/** `kind` `id` closed: no longer listed. */
export function unlist(conversation: Conversation, kind: Kind, id: string): Conversation {
  const { incomplete } = conversation.parts;
  const next = incomplete.remove(id, spaceOf(kind));
  return next === incomplete ? conversation : conversation.with({ incomplete: next });
}

/**
 * Every item this pipeline still has open gets `reason` (RUN_ERROR → "abandoned", end of source →
 * "truncated"), and nothing is open any more. Items listed by a seed history keep their reason.
 * O(open items · log n): only the open items are visited, not the whole list.
 */
export function endOpenItems(conversation: Conversation, reason: IncompleteReason): Conversation {
  const { openMessages, openToolCalls, removedMessages, removedToolCalls } = conversation.parts;
  if (openMessages.size + openToolCalls.size + removedMessages.size + removedToolCalls.size === 0) return conversation;
  let { incomplete } = conversation.parts;
  const end = (kind: Kind, ids: Table<string>): void => {
    const space = spaceOf(kind);
    for (const id of ids.toArray()) {
      const slot = incomplete.slotOf(id, space);
      if (slot !== undefined && incomplete.at(slot)!.reason === "open")
        incomplete = incomplete.setAt(slot, { kind, id, reason });
    }
  };
  end("message", openMessages);
  end("tool-call", openToolCalls);
  const none = Table.empty<string>();
  return conversation.with({
    incomplete,
    openMessages: none,
    openToolCalls: none,
    removedMessages: none,
    removedToolCalls: none,
  });
}

/** Keeps only the items whose message / tool call the conversation still holds (after a snapshot: O(list), as the snapshot). */
export function keepHeld(conversation: Conversation): Conversation {
  const { toolCallHolder } = conversation.parts;
  const held = (item: IncompleteItem): boolean =>
    item.kind === "message" ? conversation.positionOf(item.id) !== undefined : toolCallHolder.has(item.id);
  const items = conversation.parts.incomplete.toArray();
  if (items.every(held)) return conversation;
  return conversation.with({ incomplete: kindTable(items.filter(held)) });
}
