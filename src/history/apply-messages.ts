import { EventType, type Message } from "@ag-ui/core";
import { byteLength } from "../core/json";
import { protocolError } from "../core/errors";
import { TextMessageRoleSchema } from "@ag-ui/core/schemas";
import { NONE, result } from "../core/types";
import type { AguiEvent, ReasoningWarning, StepContext, StepResult } from "../core/types";
import type { Conversation } from "./conversation";
import { contentLimitExceeded, fitsContentLength } from "./content-limit";
import { flatten } from "./content-builder";
import { closed, opened } from "./incomplete";
import { ended, instantOf, startOf, startReasoning, type Clock } from "./durations";
import {
  malformed,
  mergeMetadata,
  readMetadata,
  readField,
  readOptionalString,
  readString,
  roleName,
  warning,
} from "./read-event";

/**
 * Streamed messages (text and reasoning), START / CONTENT / END by `messageId` (R-STREAM-4, R-TEXT-*,
 * R-REASON-7). START creates the message at the end of the conversation — or reopens a held one in
 * place (R-TEXT-5, R-RUN-10) — CONTENT appends in arrival order, and the metadata of all three merges
 * into the message (R-META-4/5).
 */

/** What differs between the two families. */
export interface MessageFamily {
  /** `"text"` or `"reasoning"`, for error details. */
  readonly name: string;
  /** Rules for an orphan fragment and a double open. */
  readonly orphanRule: string;
  readonly duplicateRule: string;
  /** Whether a held message of this role belongs to the family (else the id conflicts, D-ROLE-CONFLICT). */
  fits(role: string): boolean;
  /** The new message a START creates (`content: ""`, R-SCHEMA-10), with the START's own-copy `metadata`. */
  create(event: AguiEvent, ctx: StepContext, id: string, metadata: Record<string, unknown> | undefined): Message;
}

const TEXT_ROLES: ReadonlySet<string> = new Set(TextMessageRoleSchema.options);

export const TEXT_FAMILY: MessageFamily = {
  name: "text",
  orphanRule: "R-TEXT-9",
  duplicateRule: "R-TEXT-9",
  fits: (role) => TEXT_ROLES.has(role),
  create(event, ctx, id, metadata) {
    // R-TEXT-3: role optional, absent = assistant; `name` optional.
    const role = readOptionalString(event, "role", ctx) ?? "assistant";
    if (!TEXT_ROLES.has(role)) throw malformed(event, ctx, "`role` must be a text message role (R-SCHEMA-12)", [id]);
    const message: Record<string, unknown> = { id, role, content: "" };
    const name = readOptionalString(event, "name", ctx);
    if (name !== undefined) message.name = name;
    return attributed(message, event, ctx, metadata);
  },
};

export const REASONING_FAMILY: MessageFamily = {
  name: "reasoning",
  orphanRule: "R-REASON-9",
  duplicateRule: "R-REASON-11",
  fits: (role) => role === "reasoning",
  create(event, ctx, id, metadata) {
    // R-SCHEMA-2: role required and fixed; R-SCHEMA-10: a reasoning message never has `name`.
    if (readField(event, "role", ctx) !== "reasoning")
      throw malformed(event, ctx, '`role` must be "reasoning" (R-SCHEMA-2)', [id]);
    return attributed({ id, role: "reasoning", content: "" }, event, ctx, metadata);
  },
};

export function startMessage(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  family: MessageFamily,
  /** The durations' clock, for a reasoning message (D-DURATION). */
  now?: Clock,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "messageId", ctx);
  const metadata = readMetadata(event, ctx);
  if (conversation.parts.openMessages.has(id)) {
    throw protocolError(
      "DUPLICATE_OPEN",
      family.duplicateRule,
      event,
      ctx,
      [id],
      `the ${family.name} message is already open`,
    );
  }
  const position = conversation.positionOf(id);
  // D-TOOL-RESULT-ID, the other way round: a tool result came first under this id. The text message
  // is a message of its own, and lookups by the id resolve to it from now on (R-TEXT-5: no failure).
  const yields = position !== undefined && family === TEXT_FAMILY && conversation.at(position)!.role === "tool";
  // Else a reopen (R-TEXT-5): the established values stand, content will append, position is kept.
  const held = position === undefined || yields ? undefined : conversation.at(position)!;
  if (held !== undefined && !family.fits(held.role)) {
    throw protocolError(
      "ID_ROLE_CONFLICT",
      "D-ROLE-CONFLICT",
      event,
      ctx,
      [id],
      `a ${family.name} message START names a held ${roleName(held.role)} message`,
    );
  }
  // Whatever may throw comes before the first edit (see history-stage.ts): the message, the warning, the clock.
  const created = held === undefined ? family.create(event, ctx, id, metadata) : undefined;
  const text =
    "TEXT_MESSAGE_START reuses the id of a held tool message; the text message was added as a message of its own";
  const warnings = yields ? [warning("DUPLICATE_MESSAGE_ID", "D-TOOL-RESULT-ID", event, ctx, [id], text)] : NONE;
  const start = now === undefined ? undefined : startOf(conversation, id, event, ctx, now);
  let next: Conversation;
  if (created === undefined)
    next = metadata === undefined ? conversation : conversation.replaceAt(position!, withMetadata(held!, metadata));
  else
    next = yields
      ? conversation.yieldIdOfToolMessage(id, position).append(created)
      : conversation.append(created, true);
  if (now !== undefined) next = startReasoning(next, id, start);
  return opened(next, "message", id).passing(event, warnings);
}

export function appendContent(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  family: MessageFamily,
  maxContentLength: number,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "messageId", ctx);
  const delta = readString(event, "delta", ctx);
  const metadata = readMetadata(event, ctx);
  const position = openPosition(conversation, event, ctx, family, id, "ORPHAN_CONTENT");
  if (position === REPLACED && (delta !== "" || metadata !== undefined))
    return notApplied(conversation, event, ctx, id, byteLength(delta), metadata !== undefined, RESTATED);
  if (delta === "") {
    // An empty delta (keep-alive) appends nothing (R-SCHEMA-3); only its metadata, if any, lands.
    if (metadata === undefined) return conversation.passing(event);
    if (position < 0) return notApplied(conversation, event, ctx, id, 0, true, REMOVED);
    return conversation.replaceAt(position, withMetadata(conversation.at(position)!, metadata)).passing(event);
  }
  if (position < 0) return notApplied(conversation, event, ctx, id, byteLength(delta), metadata !== undefined, REMOVED);
  const held = conversation.at(position)! as Message & { readonly content?: unknown };
  const content = held.content;
  if (content !== undefined && typeof content !== "string") {
    return notApplied(
      conversation,
      event,
      ctx,
      id,
      byteLength(delta),
      metadata !== undefined,
      `is held as a ${roleName(held.role)} message with non-text content, which only a MESSAGES_SNAPSHOT brings (the id names two messages)`,
    );
  }
  const length = content === undefined ? 0 : content.length;
  // D-LIMIT: checked before any string is built (past the engine's limit, `+` throws a RangeError).
  if (!fitsContentLength(length, delta.length, maxContentLength)) {
    throw contentLimitExceeded(
      event,
      ctx,
      `${family.name} message's content`,
      id,
      length,
      delta.length,
      maxContentLength,
    );
  }
  const updated = withContent(held, content === undefined ? delta : content + delta);
  if (metadata !== undefined) updated.metadata = mergeMetadata(held.metadata, metadata);
  return conversation.replaceAt(position, updated as Message).passing(event);
}

/**
 * `conversation` with the message at `position` given `content`: what a CONTENT without metadata
 * does, for the facade's delta lane (src/pipeline/delta-lane.ts, which puts the conversation's edit
 * epoch in force around it). `simple`: the message has exactly the `{ id, role, content }` layout a
 * START creates (`isSimpleMessage`, judged once by the caller), so the copy is a literal.
 */
export function withContentAt(
  conversation: Conversation,
  position: number,
  content: string,
  simple: boolean,
): Conversation {
  return conversation.replaceAt(position, withContent(conversation.at(position)!, content, simple) as Message);
}

/**
 * Whether `message` has exactly the layout `{ id, role, content }`, in this order: the one a START
 * creates, whose per-delta copy can be a literal (see `withContent`).
 */
export function isSimpleMessage(message: Message): boolean {
  const keys = Object.keys(message);
  return keys.length === 3 && keys[0] === "id" && keys[1] === "role" && keys[2] === "content";
}

/**
 * Slot of the open message `id` of `family` whose content is a string: where a CONTENT of that
 * family without metadata appends (`appendContent`, from the same `messageSlot`), or -1 when it
 * would do anything else (fail, warn, or start the content).
 */
export function appendableSlot(conversation: Conversation, family: MessageFamily, id: string): number {
  const position = messageSlot(conversation, family, id);
  return position >= 0 && typeof conversation.at(position)!.content === "string" ? position : -1;
}

/** The family whose CONTENT event type is `type`. */
export function messageFamilyOfContent(type: string): MessageFamily | undefined {
  return type === EventType.TEXT_MESSAGE_CONTENT
    ? TEXT_FAMILY
    : type === EventType.REASONING_MESSAGE_CONTENT
      ? REASONING_FAMILY
      : undefined;
}

/**
 * A copy of `held` with `content` set: the per-delta copy. Why not `{ ...held, content }`: a spread
 * followed by an overriding key takes V8's slow clone-and-redefine path, about 10× a literal on a
 * chain of successive copies. The layout every START creates, `{ id, role, content }` in this order,
 * gets a literal; any other layout a cloning spread (fast) and then the assignment.
 */
function withContent(held: Message, content: string, simple = isSimpleMessage(held)): Record<string, unknown> {
  if (simple) return { id: held.id, role: held.role, content };
  const updated: Record<string, unknown> = { ...held };
  updated.content = content;
  return updated;
}

export function endMessage(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  family: MessageFamily,
  /** The durations' clock, for a reasoning message (D-DURATION). */
  now?: Clock,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "messageId", ctx);
  const metadata = readMetadata(event, ctx);
  const position = openPosition(conversation, event, ctx, family, id, "ORPHAN_END");
  if (position < 0) {
    // D-SNAPSHOT-OPEN, D-SNAPSHOT-ROLE: the item closes (the stream's discipline stands); the history is
    // left as it is. The warning comes before the edit (see history-stage.ts).
    const why = position === REPLACED ? RESTATED : REMOVED;
    const warned = metadata === undefined ? undefined : notApplied(conversation, event, ctx, id, 0, true, why);
    const unremoved = conversation.with({ removedMessages: conversation.parts.removedMessages.remove(id) });
    return unremoved.passing(event, warned?.warnings);
  }
  const end = now === undefined ? undefined : instantOf(event, ctx, now);
  const held = conversation.at(position)!;
  flatten(() => held.content);
  let next = metadata === undefined ? conversation : conversation.replaceAt(position, withMetadata(held, metadata));
  if (end !== undefined) next = ended(next, "message", id, end);
  return closed(next, "message", id).passing(event);
}

/** A copy of a message or tool call with `metadata` merged in (R-META-4). */
export function withMetadata<T extends { readonly metadata?: unknown }>(
  target: T,
  metadata: Record<string, unknown>,
): T {
  return { ...target, metadata: mergeMetadata(target.metadata, metadata) };
}

/** Keeps the event's `subagentRunId` (R-STATE-7, R-SUB-2) and `metadata` (an own copy, D-NO-ALIAS) on a new message. */
function attributed(
  message: Record<string, unknown>,
  event: AguiEvent,
  ctx: StepContext,
  metadata: Record<string, unknown> | undefined,
): Message {
  const subagentRunId = readOptionalString(event, "subagentRunId", ctx);
  if (subagentRunId !== undefined) message.subagentRunId = subagentRunId;
  if (metadata !== undefined) message.metadata = metadata;
  return message as unknown as Message;
}

/** `openPosition` when a MESSAGES_SNAPSHOT restated the open message with a role of the other family (D-SNAPSHOT-ROLE). */
const REPLACED = -2;
/** Why a fragment is not applied (`notApplied`): a snapshot took its item away (D-SNAPSHOT-OPEN), or restated it with another role (D-SNAPSHOT-ROLE). */
export const REMOVED = "was removed by a MESSAGES_SNAPSHOT";
const RESTATED = "was restated with another role by a MESSAGES_SNAPSHOT";

/**
 * Position of the open message a fragment names, -1 when a MESSAGES_SNAPSHOT removed it
 * (D-SNAPSHOT-OPEN), or `REPLACED` when a snapshot restated it with a role of the other family
 * (D-SNAPSHOT-ROLE: the item stays open in the stream, in the family that opened it, while the
 * history holds the snapshot's message; apply-snapshot.ts moves it to `removedMessages`). A fragment
 * for anything else has no referent and fails (R-REASON-9, R-TEXT-9): the history never invents a message.
 */
function openPosition(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  family: MessageFamily,
  id: string,
  code: "ORPHAN_CONTENT" | "ORPHAN_END",
): number {
  const position = messageSlot(conversation, family, id);
  if (position !== NOT_OPEN && position !== OTHER_FAMILY) return position;
  const detail =
    position === NOT_OPEN
      ? `no ${family.name} message with this id is open`
      : `the open message is a ${roleName(conversation.at(conversation.positionOf(id)!)!.role)} message, not a ${family.name} message`;
  throw protocolError(code, family.orphanRule, event, ctx, [id], detail);
}

/** `messageSlot`: no message `id` is open (nor taken away by a snapshot); the open one is of the other family. */
const NOT_OPEN = -3;
const OTHER_FAMILY = -4;

/** `openPosition` without its errors (`NOT_OPEN`, `OTHER_FAMILY`): what the steps and the delta lane read alike. */
function messageSlot(conversation: Conversation, family: MessageFamily, id: string): number {
  const { openMessages, removedMessages } = conversation.parts;
  if (!openMessages.has(id)) {
    if (!removedMessages.has(id)) return NOT_OPEN;
    const held = conversation.positionOf(id);
    return held !== undefined && !family.fits(conversation.at(held)!.role) ? REPLACED : -1;
  }
  const position = conversation.positionOf(id);
  if (position === undefined) return -1;
  return family.fits(conversation.at(position)!.role) ? position : OTHER_FAMILY;
}

/**
 * D-SNAPSHOT-OPEN: a fragment for an open item the snapshot took away is not applied (TARGET_REMOVED);
 * D-SNAPSHOT-ROLE: nor one for an open message it restated with another role (TARGET_REPLACED).
 */
export function notApplied(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  id: string,
  bytes: number,
  hasMetadata: boolean,
  why: string,
): StepResult<Conversation, AguiEvent> {
  const lost = hasMetadata ? `${bytes} bytes of content and metadata` : `${bytes} bytes of content`;
  const text = `the open item this event continues ${why}; ${lost} not applied to history`;
  const w: ReasoningWarning =
    why === RESTATED
      ? warning("TARGET_REPLACED", "D-SNAPSHOT-ROLE", event, ctx, [id], text)
      : warning("TARGET_REMOVED", "D-SNAPSHOT-OPEN", event, ctx, [id], text);
  return result(conversation, [event], [w]);
}
