import type { IncompleteItem, IncompleteReason } from "./types";
import type { Conversation } from "./conversation";
import { keyOf, Table } from "./table";

/**
 * The `incomplete` list (D-TRUNC, D-RUN-ERROR): messages and tool calls of the history that are not
 * closed, and why. Kept beside the messages because the message schemas are closed (digest §22 Q17).
 *
 * Every START lists an item and every END unlists one, and a hostile stream opens thousands (up to
 * `maxOpenItems` per run, and abandoned items of earlier runs stay listed while their message is
 * held): a copied array made that O(list) per START/END — quadratic over a stream (issue 12,
 * finding 2). The list is a `Table` keyed `keyOf(kind, id)`: an edit costs O(log32 n), an unlisted
 * item leaves a hole squeezed out later (amortized O(1)).
 */

type Kind = IncompleteItem["kind"];

/** `kind` `id` is open (again): listed as "open", in place if it was listed already (e.g. abandoned). */
export function listOpen(conversation: Conversation, kind: Kind, id: string): Conversation {
  const { incomplete } = conversation.parts;
  return conversation.with({ incomplete: incomplete.put(keyOf(kind, id), { kind, id, reason: "open" }) });
}

/** `kind` `id` closed: no longer listed. */
export function unlist(conversation: Conversation, kind: Kind, id: string): Conversation {
  const { incomplete } = conversation.parts;
  const next = incomplete.remove(keyOf(kind, id));
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
    for (const id of ids.toArray()) {
      const key = keyOf(kind, id);
      if (incomplete.get(key)?.reason === "open") incomplete = incomplete.put(key, { kind, id, reason });
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
  return conversation.with({ incomplete: Table.keyed(items.filter(held), (item) => keyOf(item.kind, item.id)) });
}
