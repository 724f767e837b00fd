import type { Message } from "@ag-ui/core";
import { isPlainObject, jsonType } from "../core/json";
import { NONE, result } from "../core/types";
import type { AguiEvent, ReasoningWarning, StepContext, StepResult } from "../core/types";
import { toolCallsOf, type Conversation } from "./conversation";
import { REASONING_FAMILY, TEXT_FAMILY, type MessageFamily } from "./apply-messages";
import { keepHeld, unlist } from "./incomplete";
import { keepHeldDurations } from "./durations";
import { hasValue, issuersOf, recordValuesOf, replaceIssuers } from "./issuers";
import { earlierCopies, KindMap, messageKind } from "./message-key";
import { ownCopy } from "./own-copy";
import { guarded, isRole, malformed, readMessages, readOwnCopy, warning } from "./read-event";
import { typeOf } from "../core/errors";
import { sourcePointer } from "../core/source-pointer";
import { plural } from "../core/plural";
import type { ValueIssuer } from "./types";
import { Table } from "./table";

/**
 * MESSAGES_SNAPSHOT reconciliation (R-STATE-3…7, R-REASON-20, edge cases #87–#94):
 * - a snapshot message replaces the held one with the same id wholesale, in place — values,
 *   metadata and tool calls included, so a value the copy omits is withdrawn (never resurrected);
 * - a snapshot message not held is appended, in snapshot order;
 * - a held message the snapshot omits is dropped, except activity and reasoning messages — unless
 *   the snapshot carries any message of that role (per-role, self-revoking exception).
 * Issuer records of replaced or dropped messages go; values on the snapshot's messages are the
 * producer's (the snapshot is its statement). Open items it removed stop receiving fragments
 * (D-SNAPSHOT-OPEN). Cost O(held + snapshot), as a snapshot restates the conversation anyway.
 */
export function reconcileSnapshot(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  // Each copy replaces the one before it (R-STATE-4): a repeated message keeps its last copy.
  const { messages: snapshot, warnings } = listedMessages(
    readMessages(readOwnCopy(event, "messages", ctx), "/messages", event, ctx),
    "last",
    "/messages",
    event,
    ctx,
  );
  const openFamilies = openMessageFamilies(conversation);
  const plan = reconcile(conversation.messages.toArray(), snapshot);
  const added: ValueIssuer[] = [];
  for (const message of plan.restated) issuersOf(message, conversation.producer, added);
  const reconciled = replaceIssuers(conversation.withMessages(plan.messages), plan.gone, added);
  return result(keepHeldDurations(keepHeld(stopRemovedItems(reconciled, openFamilies))), [event], warnings);
}

/** The outcome of reconciling held messages with a snapshot. */
interface Reconciliation {
  /** The new conversation, in order. */
  readonly messages: Message[];
  /** The snapshot's messages placed into it (replacing or appended): their values are the producer's. */
  readonly restated: Message[];
  /** The values (by kind and id) of held messages and tool calls whose copies are gone (replaced or dropped). */
  readonly gone: KindMap<true>;
}

function reconcile(held: readonly Message[], snapshot: readonly Message[]): Reconciliation {
  // Snapshot message by kind and id (a repeated one: the later copy wins, placed where it first appears;
  // `listedMessages` warns of each copy dropped).
  const copies = new KindMap<Message>();
  for (const message of snapshot) copies.set(messageKind(message), message.id, message);
  const restatesActivity = snapshot.some((m) => m.role === "activity");
  const restatesReasoning = snapshot.some((m) => m.role === "reasoning");
  const plan: Reconciliation = { messages: [], restated: [], gone: new KindMap() };
  const placed = new KindMap<true>();
  const place = (kind: string, message: Message): void => {
    placed.set(kind, message.id, true);
    plan.messages.push(message);
    plan.restated.push(message);
  };
  const drop = (message: Message): void => {
    plan.gone.set(messageKind(message), message.id, true);
    for (const call of toolCallsOf(message) ?? []) plan.gone.set("tool-call", call.id, true);
  };
  for (const message of held) {
    const kind = messageKind(message);
    const copy = copies.get(kind, message.id);
    if (copy !== undefined) {
      drop(message);
      if (!placed.has(kind, message.id)) place(kind, copy);
    } else if (
      (message.role === "activity" && !restatesActivity) ||
      (message.role === "reasoning" && !restatesReasoning)
    ) {
      plan.messages.push(message);
    } else drop(message);
  }
  for (const message of snapshot) {
    const kind = messageKind(message);
    if (!placed.has(kind, message.id)) place(kind, copies.get(kind, message.id)!);
  }
  return plan;
}

/** The family that opened each open message (by its held role before a snapshot). */
function openMessageFamilies(conversation: Conversation): Map<string, MessageFamily> {
  const families = new Map<string, MessageFamily>();
  for (const id of conversation.parts.openMessages.toArray()) {
    const position = conversation.positionOf(id);
    if (position !== undefined)
      families.set(id, conversation.at(position)!.role === "reasoning" ? REASONING_FAMILY : TEXT_FAMILY);
  }
  return families;
}

/**
 * Open items a snapshot took away stop receiving fragments (D-SNAPSHOT-OPEN); so do open messages
 * it restated with a role the family that opened them does not hold (D-SNAPSHOT-ROLE): the history keeps the snapshot's
 * message, complete as restated, so it is no longer listed as incomplete.
 */
function stopRemovedItems(conversation: Conversation, openFamilies: ReadonlyMap<string, MessageFamily>): Conversation {
  let { openMessages, openToolCalls, removedMessages, removedToolCalls } = conversation.parts;
  let restated: Set<string> | undefined;
  for (const id of openMessages.toArray()) {
    const position = conversation.positionOf(id);
    const family = openFamilies.get(id);
    const replaced = position !== undefined && family !== undefined && !family.fits(conversation.at(position)!.role);
    if (position === undefined || replaced) {
      openMessages = openMessages.remove(id);
      removedMessages = removedMessages.put(id, id);
    }
    if (replaced) (restated ??= new Set()).add(id);
  }
  for (const id of openToolCalls.toArray()) {
    if (!conversation.parts.toolCallHolder.has(id)) {
      openToolCalls = openToolCalls.remove(id);
      removedToolCalls = removedToolCalls.put(id, id);
    }
  }
  let next = conversation.with({ openMessages, openToolCalls, removedMessages, removedToolCalls });
  if (restated === undefined) return next;
  for (const id of restated) next = unlist(next, "message", id);
  return next;
}

/**
 * RUN_STARTED: a new run starts with nothing open (R-RUN-11). Messages its echoed `input.messages`
 * carries that the history does not hold yet (by id and whether they are tool messages,
 * D-HISTORY-IDS) are appended (held ones are left as they are); values on them are attributed to the
 * producer (D-ISSUER).
 */
export function startRun(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  // Echoed messages are stored: the package's own copy of them (D-NO-ALIAS), not of the whole input.
  const echo = guarded(event, ctx, "input", () => {
    const input = event.input;
    if (input === undefined) return undefined;
    if (!isPlainObject(input)) return { not: jsonType(input) };
    return { messages: ownCopy(input.messages) };
  });
  if (echo?.not !== undefined)
    throw malformed(event, ctx, `\`input\` must be an object when present (got ${echo.not})`);
  const echoed = echo?.messages === undefined ? NONE : readMessages(echo.messages, "/input/messages", event, ctx);
  // A held message is left as it is, so is one the echo listed before: a repeated message keeps its first copy.
  const { messages, warnings } = listedMessages(echoed, "first", "/input/messages", event, ctx);
  let next = conversation.with({ removedMessages: Table.empty(), removedToolCalls: Table.empty() });
  for (const message of messages) {
    // Held ones are matched by id and whether they are tool messages (D-HISTORY-IDS): a tool result
    // sharing the id of a held assistant message is a message of its own (D-TOOL-RESULT-ID).
    if (message.role === "tool") {
      if (next.toolMessageAt(message.id, next.positionOf(message.id)) !== undefined) continue;
    } else {
      const position = next.positionOf(message.id);
      if (position !== undefined) {
        if (next.at(position)!.role !== "tool") continue;
        next = next.yieldIdOfToolMessage(message.id, position);
      }
    }
    next = recordValuesOf(next.append(message), message);
  }
  return result(next, [event], warnings);
}

/**
 * The messages of a list the history takes (a snapshot's, an echo's), and the warnings the list
 * earns, in this order:
 * - a message whose role is not a 1.0 role is an unrecognised union member: the element is dropped
 *   with a warning and the list kept (R-PROC-10/11, #95). Enforcement does this upstream; the history
 *   repeats it for standalone use, so it never holds (or sends back) unrecognised material;
 * - a list naming one message more than once (by its key, D-HISTORY-IDS) breaks R-EVT-8, and a
 *   history holds each message once: every copy but the one kept (`keep`) is dropped, each with a
 *   lossy DUPLICATE_MESSAGE_ID naming the id, where the copy stood and what it held — never its text
 *   or value (D-REDACT). The caller keeps that copy (`reconcile`, `startRun`); this only warns. O(list).
 * Paths name where the source had the message, in a list enforcement shortened too (D-EVENT-INDEX).
 */
function listedMessages(
  messages: readonly Message[],
  keep: "first" | "last",
  path: string,
  event: AguiEvent,
  ctx: StepContext,
): { messages: readonly Message[]; warnings: readonly ReasoningWarning[] } {
  let known: Message[] | undefined;
  const unknown: ReasoningWarning[] = [];
  const repeated: ReasoningWarning[] = [];
  const earlier = earlierCopies(keep);
  const at = (i: number): string => sourcePointer(`${path}/${i}`, ctx.shortened);
  messages.forEach((message, i) => {
    if (!isRole(message.role)) {
      known ??= messages.slice(0, i);
      const text = "a message with an unrecognised role was dropped from the list";
      unknown.push(warning("UNKNOWN_UNION_MEMBER", "R-PROC-11", event, ctx, [message.id], text, `${at(i)}/role`));
      return;
    }
    known?.push(message);
    const before = earlier(message, i);
    if (before === undefined) return;
    const [dropped, kept] = keep === "last" ? [before, i] : [i, before];
    const what = message.role === "tool" ? "tool message id" : "message id";
    const text = `${typeOf(event)} lists this ${what} more than once; a history holds each message once: the copy at ${at(dropped)}${heldBy(messages[dropped]!)} was dropped for the one at ${at(kept)}`;
    repeated.push(warning("DUPLICATE_MESSAGE_ID", "R-EVT-8", event, ctx, [message.id], text, at(dropped)));
  });
  const warnings = unknown.length + repeated.length === 0 ? NONE : [...unknown, ...repeated];
  return { messages: known ?? messages, warnings };
}

/** What a dropped copy of a message held that a reader would miss: its value, its tool calls (counts only, D-REDACT). */
function heldBy(message: Message): string {
  const parts: string[] = [];
  if (hasValue(message)) parts.push("an encrypted value");
  const calls = toolCallsOf(message);
  if (calls !== undefined && calls.length > 0) {
    const valued = calls.filter((call) => hasValue(call)).length;
    parts.push(`${plural(calls.length, "tool call")}${valued === 0 ? "" : ` (${valued} with an encrypted value)`}`);
  }
  return parts.length === 0 ? "" : `, holding ${parts.join(" and ")},`;
}
