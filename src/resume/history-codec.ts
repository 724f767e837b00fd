import type { Message } from "@ag-ui/core";
import { truncateId } from "../core/errors";
import { Conversation, toolCallsOf, type HistoryState } from "../history/conversation";
import { PersistentList } from "../history/persistent-list";
import { historyToJSON, readStoredHistory, type StoredHistory } from "../storage/history-format";
import { JsonShape } from "../storage/json-shape";

/** The history stage's item tracking: what is open, and what a MESSAGES_SNAPSHOT took away while open. */
export interface HistoryOpenSets {
  readonly openMessages: ReadonlySet<string>;
  readonly openToolCalls: ReadonlySet<string>;
  readonly removedMessages: ReadonlySet<string>;
  readonly removedToolCalls: ReadonlySet<string>;
}

/** Id lists of `HistoryOpenSets`, in JSON. */
export interface HistoryOpenSetsJSON {
  readonly messages: readonly string[];
  readonly toolCalls: readonly string[];
}

/**
 * The history stage's state in JSON: the history in its stored form (messages with their values,
 * incomplete items, issuers), plus the items still open — their later fragments must apply — and
 * those a snapshot removed while open (D-SNAPSHOT-OPEN).
 */
export interface HistoryStateJSON {
  readonly history: StoredHistory;
  readonly open: HistoryOpenSetsJSON;
  readonly removed: HistoryOpenSetsJSON;
}

/** The open sets of a history state (the live ones; see `HistoryOpenSets` for a copy taken earlier). */
export function openSetsOf(state: HistoryState): HistoryOpenSets {
  return conversationOf(state).index;
}

/** A copy of the open sets, for a state whose sets will change in place (the stage's `finish` clears them). */
export function copyOpenSets(sets: HistoryOpenSets): HistoryOpenSets {
  return {
    openMessages: new Set(sets.openMessages),
    openToolCalls: new Set(sets.openToolCalls),
    removedMessages: new Set(sets.removedMessages),
    removedToolCalls: new Set(sets.removedToolCalls),
  };
}

export function historyStateToJSON(state: HistoryState, sets: HistoryOpenSets = openSetsOf(state)): HistoryStateJSON {
  return {
    history: historyToJSON(state.history),
    open: { messages: [...sets.openMessages], toolCalls: [...sets.openToolCalls] },
    removed: { messages: [...sets.removedMessages], toolCalls: [...sets.removedToolCalls] },
  };
}

/** Reads (and checks) what `historyStateToJSON` wrote; a bad part is a `TypeError` naming its JSON pointer. */
export function historyStateFromJSON(
  json: unknown,
  shape = new JsonShape("historyStateFromJSON"),
  producer?: string,
): HistoryState {
  const doc = shape.object(json, "");
  const history = readStoredHistory(doc.history, shape, "/history");
  const conversation = Conversation.start(PersistentList.from(history.messages), history, producer);
  const { index } = conversation;
  const open = shape.object(doc.open, "/open");
  const removed = shape.object(doc.removed, "/removed");
  const calls = heldToolCalls(history.messages);
  // An item open in this stage is held, and listed as incomplete "open" (incomplete.ts keeps both in step).
  const listed = new Set(
    history.incomplete.filter((item) => item.reason === "open").map((item) => `${item.kind}\u0000${item.id}`),
  );
  for (const id of ids(shape, open.messages, "/open/messages")) {
    if (!index.position.has(id)) shape.fail("/open/messages", `names ${quoted(id)}, which the history does not hold`);
    if (!listed.has(`message\u0000${id}`))
      shape.fail("/open/messages", `names ${quoted(id)}, which the history does not list as incomplete "open"`);
    index.openMessages.add(id);
  }
  for (const id of ids(shape, open.toolCalls, "/open/toolCalls")) {
    if (!calls.has(id)) shape.fail("/open/toolCalls", `names ${quoted(id)}, which no held assistant message holds`);
    if (!listed.has(`tool-call\u0000${id}`))
      shape.fail("/open/toolCalls", `names ${quoted(id)}, which the history does not list as incomplete "open"`);
    index.openToolCalls.add(id);
  }
  for (const id of ids(shape, removed.messages, "/removed/messages")) index.removedMessages.add(id);
  for (const id of ids(shape, removed.toolCalls, "/removed/toolCalls")) index.removedToolCalls.add(id);
  return conversation;
}

function conversationOf(state: HistoryState): Conversation {
  if (state instanceof Conversation) return state;
  throw new TypeError("agui-reasoning: exportState: the history state is not the history stage's own (Conversation)");
}

function ids(shape: JsonShape, value: unknown, path: string): string[] {
  return shape.array(value, path).map((id, i) => shape.string(id, `${path}/${i}`));
}

function heldToolCalls(messages: readonly Message[]): Set<string> {
  const held = new Set<string>();
  for (const message of messages) for (const call of toolCallsOf(message) ?? []) held.add(call.id);
  return held;
}

const quoted = (id: string): string => JSON.stringify(truncateId(id));
