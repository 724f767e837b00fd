import type { Message, ToolCall } from "@ag-ui/core";
import type { ReasoningWarning } from "../core/types";
import { toolCallsOf } from "../history/conversation";
import { entityKeys, heldRecords, type Records } from "../history/held-records";
import { hasValue, issuerRecord, issuersOf, messageRecord } from "../history/issuers";
import { KindMap, messageIds, messageKind, recordKind } from "../history/message-key";
import { ownCopy } from "../history/own-copy";
import { isPlainObject, lengthOf, NotJsonData } from "../core/json";
import { messageProblem } from "../history/read-event";
import { runInputOfRead } from "../history/run-input";
import type { ReasoningHistory, ValueIssuer } from "../history/types";

/** Where the middleware's next run starts, and what it sends. */
export interface NextRun {
  /** The history the run continues (the pipeline's `initialHistory`). */
  readonly history: ReasoningHistory;
  /** The run input's messages, as they go to the producer. */
  readonly messages: Message[];
  /** What the thread's next run may give back: `departed` for it (`continueConversation`). */
  readonly departed: ReasoningHistory;
}

/** How many messages that left a thread's conversation with a value the middleware keeps (the latest to leave). */
export const KEPT_DEPARTED = 256;

/**
 * The middleware keeps the conversation (D-KEEPER): `held` is its history after the last run, `sent`
 * the run input's messages (the application's list, perhaps stripped of values).
 *
 * - The history continues from `held` in the application's order: a message still sent stays as
 *   held (values and issuer records included); one no longer sent leaves (with its records and
 *   `incomplete` items); one added enters as `initialMessages` do. Held activity messages, which a
 *   client never sends (R-INPUT-4), stay after the message they followed. Held reasoning messages
 *   the application leaves out while it still sends the message they preceded stay before it, and
 *   go out (R-INPUT-3: a run input holds the reasoning; R-REASON-17): a store of what a UI shows.
 * - The run input is the application's list with each held value restored where the copy has none,
 *   then only `producer`'s values (`toRunInputMessages`, D-ISSUER). A value the application sets
 *   itself is sent as given and held as `producer`'s.
 *
 * - `departed` holds the messages with a value (on them or a tool call) that left earlier runs'
 *   conversations, with their records: a chat UI with branches (assistant-ui's regenerate and edit,
 *   then its branch picker) sends a branch again after a run without it, and its copy lacks the tool
 *   calls' values. A message that returns is held again; the latest KEPT_DEPARTED to leave are kept.
 *
 * Messages match by id and tool-ness (D-HISTORY-IDS), tool calls by id. O(held + sent + departed).
 */
export function continueConversation(
  held: ReasoningHistory | undefined,
  sent: unknown,
  producer: string,
  onWarning: (w: ReasoningWarning) => void,
  departed: ReasoningHistory = EMPTY_HISTORY,
): NextRun {
  const app = appMessages(sent);
  const heldMessages = held?.messages ?? [];

  // Keyed by message kind and id (D-HISTORY-IDS).
  const sentKeys = messageIds(app);
  const heldByKey = new KindMap<Message>();
  // Held activity messages the application does not send, by the key of the message they follow ("", "": first).
  const following = new KindMap<Message[]>();
  // Held reasoning messages the application does not send, by the key of the sent message they precede:
  // a store that keeps what it shows drops reasoning and keeps the answer (lossy: restored, R-INPUT-3);
  // a turn removed (regenerate, edit) has lost that message too, and its reasoning leaves with it.
  const preceding = new KindMap<Message[]>();
  // Reads a list of held (or departed) messages in their order into the three maps above.
  const scan = (source: readonly Message[]): void => {
    let dropped: Message[] = [];
    let anchorKind = "";
    let anchorId = "";
    for (const message of source) {
      const kind = messageKind(message);
      if (!heldByKey.has(kind, message.id)) heldByKey.set(kind, message.id, message);
      if (sentKeys.has(kind, message.id)) {
        anchorKind = kind;
        anchorId = message.id;
        if (dropped.length > 0) preceding.set(kind, message.id, dropped);
        dropped = [];
      } else if (message.role === "activity") {
        const list = following.get(anchorKind, anchorId);
        if (list === undefined) following.set(anchorKind, anchorId, [message]);
        else list.push(message);
      } else if (message.role === "reasoning") dropped.push(message);
      else dropped = [];
    }
  };
  scan(heldMessages);
  // A message that left an earlier run's conversation and is sent again is held again (one the
  // conversation holds once more, the producer having reused its id, is the held one), and so is its
  // reasoning the application dropped.
  const back = departed.messages.filter((message) => !heldByKey.has(messageKind(message), message.id));
  scan(back);
  // The held and the returning records: those of the messages in this run's conversation stay in it.
  const records = joinedRecords(
    held ?? EMPTY_HISTORY,
    back.length === departed.messages.length ? departed : heldRecords(back, departed),
  );

  const merge = new ValueMerge(producer);
  const messages: Message[] = [...(following.get("", "") ?? [])];
  const outgoing: Message[] = [];
  // Key → the history's message for it. A key the application repeats is held once (R-EVT-8); each
  // copy it sends gets that message's values.
  const placed = new KindMap<Message>();
  app.forEach((message, i) => {
    const kind = messageKind(message);
    const entry = placed.get(kind, message.id);
    if (entry !== undefined) {
      outgoing.push(merge.restored(entry, message));
      return;
    }
    // Held reasoning the application dropped before this message (none of it is sent, so none is placed).
    for (const restored of preceding.get(kind, message.id) ?? []) {
      messages.push(restored);
      outgoing.push(restored);
    }
    const kept = heldByKey.get(kind, message.id);
    if (kept === undefined) {
      const copy = appCopy(message, i);
      messages.push(copy);
      merge.added(copy);
      outgoing.push(message);
      placed.set(kind, message.id, copy);
    } else {
      const merged = merge.kept(kept, message);
      messages.push(merged);
      outgoing.push(merge.restored(kept, message));
      placed.set(kind, message.id, merged);
    }
    messages.push(...(following.get(kind, message.id) ?? []));
  });

  const present = entityKeys(messages);
  const issuers = merge.issuers(records.issuers, present);
  // The held `incomplete` items and durations of the messages and tool calls still in the conversation.
  const { incomplete, durations } = heldRecords(messages, records, present);
  const history: ReasoningHistory = { messages, incomplete, issuers, durations };
  return {
    history,
    messages: runInputOfRead(
      { messages: outgoing, incomplete: [], issuers, durations: [] },
      producer,
      { onWarning },
      "reasoningMiddleware",
    ),
    departed: leaving(back, heldMessages, present, records),
  };
}

/**
 * The messages with a value that are out of the conversation after this run (`present`: what is in
 * it) — the earlier departed, then the held messages the application no longer sends — the latest
 * KEPT_DEPARTED of them, with their records. Activity messages are never sent (R-INPUT-4), so never
 * given back.
 */
function leaving(
  earlier: readonly Message[],
  heldMessages: readonly Message[],
  present: KindMap<true>,
  records: Records,
): ReasoningHistory {
  const out: Message[] = [];
  // This run's departures, then the earlier ones (none of them held), each newest first: the bound keeps
  // the latest to leave. A history holds a message once (R-EVT-8), so none is listed twice.
  for (const list of [heldMessages, earlier])
    for (let i = list.length - 1; i >= 0 && out.length < KEPT_DEPARTED; i--) {
      const message = list[i]!;
      if (!present.has(messageKind(message), message.id) && carriesValue(message)) out.push(message);
    }
  out.reverse();
  return { messages: out, ...heldRecords(out, records) };
}

/**
 * What a run still going keeps of another run of its thread that ended meanwhile (two tabs, a double
 * submit: both continued one conversation with different messages, and only one of the two can be the
 * thread's): `departed` (none: undefined) with the messages of `ended` (that run's last history) that carry a value and
 * are not in `present` (the conversation this one is keeping), with their records, as the latest to
 * leave. Sent again, they get their values back as a branch does. O(ended + departed + present).
 */
export function joinDeparted(
  departed: ReasoningHistory = EMPTY_HISTORY,
  ended: ReasoningHistory,
  present: readonly Message[],
): ReasoningHistory {
  // A message both hold is `ended`'s (the newer), listed once (R-EVT-8).
  const endedKeys = messageIds(ended.messages);
  const earlier = departed.messages.filter((message) => !endedKeys.has(messageKind(message), message.id));
  return leaving(earlier, ended.messages, entityKeys(present), joinedRecords(ended, heldRecords(earlier, departed)));
}

/** Whether a message or one of its tool calls holds an encrypted value. */
function carriesValue(message: Message): boolean {
  return message.role !== "activity" && (hasValue(message) || (toolCallsOf(message)?.some(hasValue) ?? false));
}

/** The records of `held` then those of `departed`. */
function joinedRecords(held: Records, departed: Records): Records {
  if (departed.issuers.length + departed.incomplete.length + departed.durations.length === 0) return held;
  return {
    incomplete: [...held.incomplete, ...departed.incomplete],
    issuers: [...held.issuers, ...departed.issuers],
    durations: [...held.durations, ...departed.durations],
  };
}

/**
 * Merges held values with the application's copies, and collects the records that change: a value
 * the application sets itself is `producer`'s (D-ISSUER), as are the values of a message it adds.
 */
class ValueMerge {
  // Value (as `recordKind` and id) → the record replacing (or joining) the held one.
  private readonly changed = new KindMap<ValueIssuer>();
  // The first record set for each key of `changed`, in that order: the new ones go out in it.
  private readonly order: ValueIssuer[] = [];

  constructor(private readonly producer: string) {}

  /** Records the values of a message the application added. */
  added(message: Message): void {
    for (const record of issuersOf(message, this.producer)) this.change(record);
  }

  /** The held message, with every value the application set itself in place of the held one. */
  kept(held: Message, copy: Message): Message {
    const kept = this.takeValue(held, copy, () => messageRecord(held, this.producer));
    return withMatchedCalls(kept, copy, (call, theirs) =>
      this.takeValue(call, theirs, () => issuerRecord("tool-call", call.id, this.producer)),
    );
  }

  /** The application's copy with every held value restored where the copy has none. */
  restored(held: Message, copy: Message): Message {
    return withMatchedCalls(restoreValue(copy, held), held, restoreValue);
  }

  /**
   * The history's records: the held ones of entities still present (in their order, each replaced
   * by its change), then the new ones.
   */
  issuers(held: readonly ValueIssuer[], present: KindMap<true>): ValueIssuer[] {
    const out: ValueIssuer[] = [];
    const done = new KindMap<true>();
    for (const record of held) {
      const kind = recordKind(record);
      if (!present.has(kind, record.entityId) || done.has(kind, record.entityId)) continue;
      done.set(kind, record.entityId, true);
      out.push(this.changed.get(kind, record.entityId) ?? record);
    }
    for (const first of this.order) {
      const kind = recordKind(first);
      if (!done.has(kind, first.entityId)) out.push(this.changed.get(kind, first.entityId)!);
    }
    return out;
  }

  private change(record: ValueIssuer): void {
    const kind = recordKind(record);
    if (!this.changed.has(kind, record.entityId)) this.order.push(record);
    this.changed.set(kind, record.entityId, record);
  }

  /**
   * `held`, or a copy of it with the application's value when the application set a different one,
   * recorded as `producer`'s (`record()`, made only then).
   */
  private takeValue<T extends object>(held: T, copy: object, record: () => ValueIssuer): T {
    if (!hasValue(copy)) return held;
    if (hasValue(held) && held.encryptedValue === copy.encryptedValue) return held;
    const made = record();
    this.change(made);
    return { ...held, encryptedValue: copy.encryptedValue };
  }
}

/** `copy` with `held`'s value when it has none of its own (the application dropped it). */
function restoreValue<T extends object>(copy: T, held: object): T {
  if (hasValue(copy) || !hasValue(held)) return copy;
  return { ...copy, encryptedValue: held.encryptedValue };
}

/**
 * `base` with each of its tool calls that `other` also holds (by id, the first of a repeated id) replaced by
 * `merge(call, match)`; `base` itself when no call changed.
 */
function withMatchedCalls(
  base: Message,
  other: Message,
  merge: (call: ToolCall, match: ToolCall) => ToolCall,
): Message {
  const calls = toolCallsOf(base);
  const others = toolCallsOf(other);
  if (calls === undefined || others === undefined) return base;
  const byId = new Map<string, ToolCall>();
  for (const call of others) if (!byId.has(call.id)) byId.set(call.id, call);
  let changed = false;
  const merged = calls.map((call) => {
    const match = byId.get(call.id);
    const next = match === undefined ? call : merge(call, match);
    if (next !== call) changed = true;
    return next;
  });
  return changed ? ({ ...base, toolCalls: merged } as Message) : base;
}

/** The run input's messages, each read once (`readOnce`) and checked as `initialMessages` are (a non-array is none). */
function appMessages(sent: unknown): readonly Message[] {
  if (!Array.isArray(sent)) return [];
  const app: Message[] = [];
  // Every slot, holes too (`forEach` skips them, slot by slot over a sparse array's claimed length): the
  // first fails. Its length read once, and bounded (`lengthOf`).
  for (let i = 0, n = sentLength(sent); i < n; i++) {
    const message = readOnce(sent, i);
    const problem = messageProblem(message);
    if (problem !== undefined)
      throw new TypeError(`agui-reasoning: reasoningMiddleware: run input messages[${i}]: ${problem}`);
    app.push(message as Message);
  }
  return app;
}

/** `lengthOf(sent)`, or a `TypeError` naming the list (`readable`). */
const sentLength = (sent: readonly unknown[]): number => readable("run input messages", () => lengthOf(sent));

/**
 * `sent[i]`, a message read once into a shallow copy (its tool calls too, up to a hole, which stays
 * for the check to name): what is read of it later is read from the copy, never again from the
 * application's objects, whose getters may answer a second read otherwise. A read that throws names
 * the index (`readable`).
 */
function readOnce(sent: readonly unknown[], i: number): unknown {
  return readable(`run input messages[${i}]`, () => {
    const value = sent[i];
    if (!isPlainObject(value)) return value;
    const copy: Record<string, unknown> = { ...value };
    const calls = copy.toolCalls;
    if (!Array.isArray(calls)) return copy;
    const read: unknown[] = [];
    const n = lengthOf(calls);
    let k = 0;
    for (; k < n && k in calls; k++) {
      const call: unknown = calls[k];
      read.push(isPlainObject(call) ? { ...call } : call);
    }
    if (k < n) read.length = k + 1; // the first hole, for the check to name
    copy.toolCalls = read;
    return copy;
  });
}

/** `read()`, or a `TypeError` saying `what` of the run input cannot be read and why, never what was thrown (D-REDACT). */
function readable<T>(what: string, read: () => T): T {
  let why: string;
  try {
    return read();
  } catch (error) {
    // Not as `cause` either: what was thrown may quote the conversation (D-REDACT).
    why = error instanceof NotJsonData ? error.message : "a read of it threw";
  }
  throw new TypeError(`agui-reasoning: reasoningMiddleware: ${what} cannot be read (${why})`);
}

/** The history's own copy of a message the application added (D-NO-ALIAS). */
function appCopy(message: Message, i: number): Message {
  try {
    return ownCopy(message);
  } catch (error) {
    const why = error instanceof NotJsonData ? error.message : "it cannot be read";
    throw new TypeError(`agui-reasoning: reasoningMiddleware: run input messages[${i}] is not JSON data: ${why}`, {
      cause: error,
    });
  }
}

const EMPTY_HISTORY: ReasoningHistory = { messages: [], incomplete: [], issuers: [], durations: [] };
