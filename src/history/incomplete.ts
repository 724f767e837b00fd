import type { IncompleteItem, IncompleteReason } from "./types";
import type { Conversation } from "./conversation";
import { PersistentList } from "./persistent-list";
import { clearIfAny } from "../core/clear";

/**
 * The `incomplete` list (D-TRUNC, D-RUN-ERROR): messages and tool calls of the history that are not
 * closed, and why. Kept beside the messages because the message schemas are closed (digest §22 Q17).
 *
 * Why a persistent structure: every START lists an item and every END unlists one, and a hostile
 * stream opens thousands (up to `maxOpenItems` per run, and abandoned items of earlier runs stay
 * listed while their message is held). A copied array made that O(list) per START/END — quadratic
 * over a stream (issue 12, finding 2). Here the list is a `PersistentList` of slots, an item's slot
 * found through the conversation's index (`incompleteSlot`): an edit costs O(log32 n), and an unlisted
 * item leaves an empty slot, compacted away once empty slots outnumber items (amortized O(1)).
 * Every version stays immutable: the published array of a version is built from its own slots.
 */
export class IncompleteList {
  private constructor(
    /** Items in listing order; `undefined`: a slot emptied by `unlist`. */
    readonly slots: PersistentList<IncompleteItem | undefined>,
    /** Items listed (slots not empty). */
    readonly size: number,
    // The plain array of this version, once built (or the seed's own array).
    private array: readonly IncompleteItem[] | undefined,
  ) {}

  /** A list of `items` (a seed's, kept as its published array); `slotOf` gets each item's slot. */
  static from(items: readonly IncompleteItem[], slotOf: (item: IncompleteItem, slot: number) => void): IncompleteList {
    if (items.length === 0) return new IncompleteList(PersistentList.empty(), 0, items);
    items.forEach(slotOf);
    return new IncompleteList(PersistentList.from(items), items.length, items);
  }

  /** Whether the plain array is built or cheap to build (publication may then take it at once). */
  get ready(): boolean {
    return this.array !== undefined || this.size <= EAGER_ITEMS;
  }

  /** The items in listing order, as a plain array (built once per version, O(slots)). */
  toArray(): readonly IncompleteItem[] {
    let array = this.array;
    if (array === undefined) {
      // One fresh array, its empty slots squeezed out in place (no second array per version).
      const items = this.slots.toArray();
      let kept = 0;
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (item !== undefined) items[kept++] = item;
      }
      items.length = kept;
      array = items as readonly IncompleteItem[];
      this.array = array;
    }
    return array;
  }

  get(slot: number): IncompleteItem | undefined {
    return this.slots.get(slot);
  }

  /** This list with `item` in `slot` (an existing slot) or appended (`slot` undefined). */
  with(slot: number | undefined, item: IncompleteItem): IncompleteList {
    if (slot === undefined) return new IncompleteList(this.slots.push(item), this.size + 1, undefined);
    const listed = this.slots.get(slot) !== undefined;
    return new IncompleteList(this.slots.set(slot, item), listed ? this.size : this.size + 1, undefined);
  }

  /** This list with `slot` emptied. */
  without(slot: number): IncompleteList {
    return new IncompleteList(this.slots.set(slot, undefined), this.size - 1, undefined);
  }

  /**
   * Whether empty slots outnumber items and a few (then compacting pays for itself: it costs
   * O(slots) after more than `size` and `COMPACT_AFTER` unlists). Compacting early keeps the slots
   * within twice the items: every version a START or END makes is published with its array, built
   * from the slots (issue 13: a conversation's two or three open items were spread over ~200 slots).
   */
  get sparse(): boolean {
    const empty = this.slots.size - this.size;
    return empty > COMPACT_AFTER && empty > this.size;
  }
}

/** Compaction waits for more empty slots than this (and than items). */
const COMPACT_AFTER = 16;

/** Up to this many items a published history gets its `incomplete` array at once; above, when read. */
export const EAGER_ITEMS = 128;

type Kind = IncompleteItem["kind"];

/** `kind` `id` is open (again): listed as "open", in place if it was listed already (e.g. abandoned). */
export function listOpen(conversation: Conversation, kind: Kind, id: string): Conversation {
  const slots = slotsOf(conversation, kind);
  const at = slots.get(id);
  const list = conversation.incomplete;
  if (at === undefined) slots.set(id, list.slots.size);
  return conversation.withIncomplete(list.with(at, { kind, id, reason: "open" }));
}

/** `kind` `id` closed: no longer listed. */
export function unlist(conversation: Conversation, kind: Kind, id: string): Conversation {
  const slots = slotsOf(conversation, kind);
  const at = slots.get(id);
  if (at === undefined) return conversation;
  slots.delete(id);
  const list = conversation.incomplete.without(at);
  return conversation.withIncomplete(list.sparse ? rebuilt(conversation, list.toArray()) : list);
}

/**
 * Every item this pipeline still has open gets `reason` (RUN_ERROR → "abandoned", end of source →
 * "truncated"), and nothing is open any more. Items listed by a seed history keep their reason.
 * O(open items · log n): only the open items are visited, not the whole list.
 */
export function endOpenItems(conversation: Conversation, reason: IncompleteReason): Conversation {
  const { openMessages, openToolCalls, removedMessages, removedToolCalls, incompleteSlot } = conversation.index;
  clearIfAny(removedMessages);
  clearIfAny(removedToolCalls);
  if (openMessages.size === 0 && openToolCalls.size === 0) return conversation;
  let list = conversation.incomplete;
  const end = (kind: Kind, ids: ReadonlySet<string>): void => {
    const slots = incompleteSlot[kind];
    for (const id of ids) {
      const at = slots.get(id);
      if (at !== undefined && list.get(at)?.reason === "open") list = list.with(at, { kind, id, reason });
    }
  };
  end("message", openMessages);
  end("tool-call", openToolCalls);
  openMessages.clear();
  openToolCalls.clear();
  return conversation.withIncomplete(list);
}

/** Keeps only the items whose message / tool call the conversation still holds (after a snapshot: O(list), as the snapshot). */
export function keepHeld(conversation: Conversation): Conversation {
  const { position, toolCallHolder } = conversation.index;
  const held = (item: IncompleteItem): boolean =>
    item.kind === "message" ? position.has(item.id) : toolCallHolder.has(item.id);
  const items = conversation.incomplete.toArray();
  return items.every(held) ? conversation : conversation.withIncomplete(rebuilt(conversation, items.filter(held)));
}

/** A fresh list of `items` (no empty slots), the index's slots rebuilt for it. */
function rebuilt(conversation: Conversation, items: readonly IncompleteItem[]): IncompleteList {
  return indexIncomplete(items, conversation.index.incompleteSlot);
}

/** A list of `items`, with `slots` (cleared first) mapping each kind's ids to their slot. */
export function indexIncomplete(items: readonly IncompleteItem[], slots: IncompleteSlots): IncompleteList {
  slots.message.clear();
  slots["tool-call"].clear();
  // A seed listing an item twice: the later one is the item's slot (as messages: the last copy wins).
  return IncompleteList.from(items, (item, slot) => slots[item.kind]?.set(item.id, slot));
}

/** Id → slot in the incomplete list, per kind. */
export type IncompleteSlots = Record<Kind, Map<string, number>>;

function slotsOf(conversation: Conversation, kind: Kind): Map<string, number> {
  return conversation.index.incompleteSlot[kind];
}
