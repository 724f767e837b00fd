import { quotedId } from "../core/errors";
import { Conversation, type HistoryState, type OpenSpan } from "../history/conversation";
import { entityKeys } from "../history/held-records";
import { KindMap } from "../history/message-key";
import { ownCopy } from "../history/own-copy";
import { Table } from "../history/table";
import {
  HISTORY_FORMAT,
  HISTORY_FORMAT_VERSION,
  readStoredHistory,
  storedIssuer,
  type StoredHistory,
} from "../storage/history-format";
import { JsonShape } from "../storage/json-shape";
import { readerCopy } from "../storage/stored-copy";

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
  /** Spans open, not yet dated in `durations` (D-DURATION); absent in a snapshot from before them. */
  readonly spans?: readonly OpenSpan[];
}

export function historyStateToJSON(state: HistoryState): HistoryStateJSON {
  if (!(state instanceof Conversation))
    throw new TypeError("agui-reasoning: exportState: the history state is not the history stage's own (Conversation)");
  const { parts } = state;
  // The pipeline's own history (no guarded reads needed, unlike `historyToJSON`'s of an app's), stored
  // as `historyToJSON` stores it.
  const { messages, incomplete, issuers, durations } = state.history;
  return {
    // The snapshot is the caller's to keep, redact or tamper with: it shares no object with the live
    // history, which editing it would otherwise change (D-NO-ALIAS). O(history), as the export is.
    history: {
      format: HISTORY_FORMAT,
      version: HISTORY_FORMAT_VERSION,
      messages: messages.map((message) => ownCopy(message)),
      incomplete: incomplete.map((item) => ({ ...item })),
      issuers: issuers.map(storedIssuer),
      durations: durations.map((duration) => ({ ...duration })),
    },
    open: { messages: [...parts.openMessages.toArray()], toolCalls: [...parts.openToolCalls.toArray()] },
    removed: { messages: [...parts.removedMessages.toArray()], toolCalls: [...parts.removedToolCalls.toArray()] },
    spans: parts.openSpans.toArray().map((span) => ({ ...span })),
  };
}

/** Reads (and checks) what `historyStateToJSON` wrote; a bad part is a `TypeError` naming its JSON pointer. */
export function historyStateFromJSON(
  json: unknown,
  shape = new JsonShape("historyStateFromJSON", "", readerCopy(json)),
  producer?: string,
): HistoryState {
  const doc = shape.object(json, "");
  const history = readStoredHistory(doc.history, shape, "/history");
  const conversation = Conversation.start(history, producer);
  const open = shape.object(doc.open, "/open");
  const removed = shape.object(doc.removed, "/removed");
  const held = entityKeys(history.messages);
  // An item open in this stage is held, and listed as incomplete "open" (incomplete.ts keeps both in step).
  const listed = new KindMap<true>();
  for (const item of history.incomplete) if (item.reason === "open") listed.set(item.kind, item.id, true);
  const openMessages = ids(shape, open.messages, "/open/messages").map((id) => {
    if (conversation.positionOf(id) === undefined)
      shape.fail("/open/messages", `names ${quotedId(id)}, which the history does not hold`);
    if (!listed.has("message", id))
      shape.fail("/open/messages", `names ${quotedId(id)}, which the history does not list as incomplete "open"`);
    return id;
  });
  const openToolCalls = ids(shape, open.toolCalls, "/open/toolCalls").map((id) => {
    if (!held.has("tool-call", id))
      shape.fail("/open/toolCalls", `names ${quotedId(id)}, which no held assistant message holds`);
    if (!listed.has("tool-call", id))
      shape.fail("/open/toolCalls", `names ${quotedId(id)}, which the history does not list as incomplete "open"`);
    return id;
  });
  const removedMessages = ids(shape, removed.messages, "/removed/messages");
  const removedToolCalls = ids(shape, removed.toolCalls, "/removed/toolCalls");
  const spans = (doc.spans === undefined ? [] : shape.array(doc.spans, "/spans")).map((entry, i) => {
    const path = `/spans/${i}`;
    const span = shape.object(entry, path);
    const read: { -readonly [K in keyof OpenSpan]: OpenSpan[K] } = {
      id: shape.string(span.id, `${path}/id`),
      startedAt: shape.integer(span.startedAt, `${path}/startedAt`),
      startObserved: shape.boolean(span.startObserved, `${path}/startObserved`),
    };
    if (span.title !== undefined) read.title = shape.string(span.title, `${path}/title`);
    return read;
  });
  const set = (list: readonly string[]): Table<string> => Table.from(list, list);
  return conversation.with({
    openMessages: set(openMessages),
    openToolCalls: set(openToolCalls),
    removedMessages: set(removedMessages),
    removedToolCalls: set(removedToolCalls),
    openSpans: Table.keyed(spans, (span) => span.id),
  });
}

function ids(shape: JsonShape, value: unknown, path: string): string[] {
  return shape.array(value, path).map((id, i) => shape.string(id, `${path}/${i}`));
}
