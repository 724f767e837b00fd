import type { AssistantMessage, Message, ToolCall, ToolMessage } from "@ag-ui/core";
import { byteLength, jsonType } from "../core/json";
import { protocolError } from "../core/errors";
import { NONE, result } from "../core/types";
import type { AguiEvent, ReasoningWarning, StepContext, StepResult } from "../core/types";
import { toolCallsOf, type Conversation } from "./conversation";
import { contentLimitExceeded, fitsContentLength } from "./content-limit";
import { flatten } from "./content-builder";
import { closed, opened } from "./incomplete";
import { notApplied, REMOVED, withMetadata } from "./apply-messages";
import { replaceIssuers } from "./issuers";
import { KindMap, messageKind } from "./message-key";
import {
  copyOf,
  malformed,
  mergeMetadata,
  readMetadata,
  readField,
  readOptionalString,
  readOwnCopy,
  readString,
  roleName,
  warning,
} from "./read-event";

/**
 * Tool calls (R-TOOL-1…6): a `ToolCall` on an assistant message, START / ARGS / END by `toolCallId`;
 * their metadata lands on the call, not on the message (R-TOOL-5, R-META-5). TOOL_CALL_RESULT mints
 * a tool message of its own and does not reopen the call (R-TOOL-3).
 *
 * Where a new call goes (the reference client's behaviour, so histories match what @ag-ui/client
 * users see): onto the assistant message `parentMessageId` names, creating an assistant message with
 * that id when none is held; without `parentMessageId`, onto a new assistant message whose id is the
 * tool call id — the producer did not attribute the call, so it is not guessed onto an earlier
 * message. A `parentMessageId` naming a non-assistant message falls back to that rule with a warning.
 */

export function startToolCall(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "toolCallId", ctx);
  const name = readString(event, "toolCallName", ctx);
  const metadata = readMetadata(event, ctx);
  if (conversation.parts.openToolCalls.has(id)) {
    throw protocolError("DUPLICATE_OPEN", "R-TOOL-6", event, ctx, [id], "the tool call is already open");
  }
  const warnings: ReasoningWarning[] = [];
  const position = holderPosition(conversation, id);
  let next: Conversation;
  if (position < 0) {
    const call: ToolCall = { id, type: "function", function: { name, arguments: "" } };
    if (metadata !== undefined) call.metadata = metadata;
    next = placeCall(conversation, event, ctx, call, warnings);
  } else {
    // Reopen (R-TOOL-2): further arguments append; the established name and parent stand.
    next = withCallMetadata(conversation, position, id, metadata);
  }
  return opened(next, "tool-call", id).passing(event, warnings);
}

/** Puts a new call on its holder (see the file comment), creating the holder when none is held. */
function placeCall(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  call: ToolCall,
  warnings: ReasoningWarning[],
): Conversation {
  const parentId = readOptionalString(event, "parentMessageId", ctx);
  let holderId = parentId ?? call.id;
  let holderAt = conversation.positionOf(holderId);
  if (holderAt !== undefined && parentId !== undefined && conversation.at(holderAt)!.role !== "assistant") {
    const role = roleName(conversation.at(holderAt)!.role);
    const text = `parentMessageId names a ${role} message, not an assistant message; the call is held on an assistant message with the tool call's id`;
    warnings.push(warning("TOOL_CALL_PARENT_CONFLICT", "R-TOOL-1", event, ctx, [call.id, parentId], text));
    holderId = call.id;
    holderAt = conversation.positionOf(holderId);
  }
  // D-TOOL-RESULT-ID, the other way round: a tool result came first under the holder's id. The
  // holder is an assistant message of its own, and lookups by the id resolve to it from now on.
  const yields = holderAt !== undefined && conversation.at(holderAt)!.role === "tool";
  if (yields) {
    const text =
      "the assistant message holding the call reuses the id of a held tool message; it was added as a message of its own";
    warnings.push(warning("DUPLICATE_MESSAGE_ID", "D-TOOL-RESULT-ID", event, ctx, [holderId], text));
  }
  if (holderAt === undefined || yields) {
    const holder: AssistantMessage = { id: holderId, role: "assistant", toolCalls: [call] };
    // Read before the first edit (see history-stage.ts).
    const subagentRunId = readOptionalString(event, "subagentRunId", ctx);
    if (subagentRunId !== undefined) holder.subagentRunId = subagentRunId;
    const yielded = yields ? conversation.yieldIdOfToolMessage(holderId, holderAt!) : conversation;
    // No held message has the holder's id now (none did, or the tool message's yielded it).
    return yielded.append(holder, true);
  }
  const held = conversation.at(holderAt)!;
  if (held.role !== "assistant") {
    throw protocolError(
      "ID_ROLE_CONFLICT",
      "D-ROLE-CONFLICT",
      event,
      ctx,
      [call.id],
      `the tool call would be held on a ${roleName(held.role)} message`,
    );
  }
  const holders = conversation.parts.toolCallHolder.put(call.id, holderId);
  // `copyOf`, then assign (as `{ ...held, toolCalls }`): the spread with an overriding key took V8's slow path.
  const holder = copyOf(held);
  holder.toolCalls = [...(toolCallsOf(held) ?? []), call];
  return conversation.with({ toolCallHolder: holders }, conversation.messages.setAt(holderAt, holder));
}

export function appendArguments(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  maxContentLength: number,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "toolCallId", ctx);
  const delta = readString(event, "delta", ctx);
  const metadata = readMetadata(event, ctx);
  const position = openCallPosition(conversation, event, ctx, id, "ORPHAN_CONTENT");
  if (delta === "" && metadata === undefined) return conversation.passing(event);
  if (position < 0) return notApplied(conversation, event, ctx, id, byteLength(delta), metadata !== undefined, REMOVED);
  const holder = conversation.at(position) as AssistantMessage;
  const calls = holder.toolCalls!;
  const slot = slotOf(calls, id);
  const call = calls[slot]!;
  const held = call.function?.arguments;
  const length = typeof held === "string" ? held.length : 0;
  // D-LIMIT: checked before any string is built (past the engine's limit, `+` throws a RangeError).
  if (!fitsContentLength(length, delta.length, maxContentLength)) {
    throw contentLimitExceeded(event, ctx, "tool call's arguments", id, length, delta.length, maxContentLength);
  }
  const updated = withArguments(call, typeof held === "string" ? held + delta : delta);
  if (metadata !== undefined) updated.metadata = mergeMetadata(call.metadata, metadata);
  return conversation.replaceAt(position, withCall(holder, slot, updated)).passing(event);
}

/**
 * `conversation` with the arguments of the tool call in `slot` of the message at `position` set to
 * `args`: what a TOOL_CALL_ARGS without metadata does, for the facade's delta lane
 * (src/pipeline/delta-lane.ts, which puts the conversation's edit epoch in force around it).
 */
export function withArgumentsAt(
  conversation: Conversation,
  position: number,
  slot: number,
  args: string,
): Conversation {
  const holder = conversation.at(position) as AssistantMessage;
  return conversation.replaceAt(position, withCall(holder, slot, withArguments(holder.toolCalls![slot]!, args)));
}

/** A copy of `call` with `args`. Clone, then assign: a spread with an overriding key takes V8's slow path (see withContent). */
function withArguments(call: ToolCall, args: string): ToolCall {
  const fn = { ...call.function };
  fn.arguments = args;
  const updated: ToolCall = { ...call };
  updated.function = fn;
  return updated;
}

/**
 * Where a TOOL_CALL_ARGS of the open tool call `id` without metadata appends (see
 * `appendArguments`): the holder's position, the call's slot and its arguments so far, when the call
 * is held with string arguments; undefined when the event would do anything else (fail, warn, or
 * start the arguments).
 */
export function appendableCall(
  conversation: Conversation,
  id: string,
): { readonly position: number; readonly slot: number; readonly args: string } | undefined {
  if (!conversation.parts.openToolCalls.has(id)) return undefined;
  const position = holderPosition(conversation, id);
  if (position < 0) return undefined;
  const calls = toolCallsOf(conversation.at(position)!);
  const slot = calls === undefined ? -1 : slotOf(calls, id);
  if (slot < 0) return undefined;
  const args = calls![slot]!.function?.arguments;
  return typeof args === "string" ? { position, slot, args } : undefined;
}

export function endToolCall(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "toolCallId", ctx);
  const metadata = readMetadata(event, ctx);
  const position = openCallPosition(conversation, event, ctx, id, "ORPHAN_END");
  if (position < 0) {
    // The warning before the edit (see history-stage.ts).
    const warned = metadata === undefined ? undefined : notApplied(conversation, event, ctx, id, 0, true, REMOVED);
    const unremoved = conversation.with({ removedToolCalls: conversation.parts.removedToolCalls.remove(id) });
    return unremoved.passing(event, warned?.warnings);
  }
  // The ended call's arguments, final now (a seeded call is checked for its id only: it may lack `function`).
  flatten(() => {
    const calls = (conversation.at(position) as AssistantMessage).toolCalls;
    return calls && (calls[slotOf(calls, id)] as Partial<ToolCall> | undefined)?.function?.arguments;
  });
  return closed(withCallMetadata(conversation, position, id, metadata), "tool-call", id).passing(event);
}

/**
 * TOOL_CALL_RESULT mints `{id: messageId, role: "tool", toolCallId, content}` (+ attribution and
 * metadata), placed after the assistant message holding the call and the tool messages already
 * following it (as the reference client does: providers expect results right after their call), or
 * appended when the call is not held. A result usually follows its call, so this is an append; an
 * insertion further back costs O(messages after it).
 */
export function addToolResult(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  const id = readString(event, "messageId", ctx);
  const toolCallId = readString(event, "toolCallId", ctx);
  // Parts are objects: the package's own copy (D-NO-ALIAS).
  const content = readOwnCopy(event, "content", ctx);
  if (typeof content !== "string" && !Array.isArray(content)) {
    throw malformed(event, ctx, `\`content\` must be a string or an array of parts (got ${jsonType(content)})`, [id]);
  }
  const role = readField(event, "role", ctx);
  if (role !== undefined && role !== "tool") throw malformed(event, ctx, '`role` must be "tool" when present', [id]);
  const message: ToolMessage = { id, role: "tool", toolCallId, content: content as ToolMessage["content"] };
  const subagentRunId = readOptionalString(event, "subagentRunId", ctx);
  if (subagentRunId !== undefined) message.subagentRunId = subagentRunId;
  const metadata = readMetadata(event, ctx);
  if (metadata !== undefined) message.metadata = metadata;

  const heldAt = conversation.positionOf(id);
  const toolAt = conversation.toolMessageAt(id, heldAt);
  if (toolAt !== undefined) {
    // The producer re-sent a result under a held id: last write wins, like a snapshot restating it.
    const w = warning(
      "DUPLICATE_MESSAGE_ID",
      "R-EVT-8",
      event,
      ctx,
      [id],
      "TOOL_CALL_RESULT reuses the id of a held tool message; the held message (and any value stored on it) was replaced",
    );
    const replaced = replaceIssuers(conversation, new KindMap<true>().set(messageKind(message), id, true), NONE);
    return result(replaced.replaceAt(toolAt, message), [event], [w]);
  }
  // D-TOOL-RESULT-ID: an id a message of another role has is no failure (R-TEXT-5); the result is a
  // tool message of its own, and lookups by the id keep resolving to the other message.
  const warnings = heldAt === undefined ? NONE : sharedIdWarning(conversation.at(heldAt)!, event, ctx, id);
  const holderAt = holderPosition(conversation, toolCallId);
  if (holderAt < 0) return conversation.append(message, heldAt === undefined).passing(event, warnings);
  let at = holderAt + 1;
  while (at < conversation.messages.slots && conversation.at(at)!.role === "tool") at++;
  return conversation.insertAt(at, message, heldAt === undefined).passing(event, warnings);
}

/**
 * The non-lossy DUPLICATE_MESSAGE_ID of D-TOOL-RESULT-ID, naming the id and both roles; none when the
 * held message is the assistant message the package minted with the id of a call it holds (a
 * TOOL_CALL_START without `parentMessageId`): then the producer reused nothing.
 */
function sharedIdWarning(held: Message, event: AguiEvent, ctx: StepContext, id: string): readonly ReasoningWarning[] {
  if (toolCallsOf(held)?.some((call) => call.id === id) === true) return NONE;
  const text = `TOOL_CALL_RESULT reuses the id of a held ${roleName(held.role)} message; the result was added as a tool message of its own`;
  return [warning("DUPLICATE_MESSAGE_ID", "D-TOOL-RESULT-ID", event, ctx, [id], text)];
}

/** Position of the assistant message holding tool call `id`, or -1. */
export function holderPosition(conversation: Conversation, id: string): number {
  const holderId = conversation.parts.toolCallHolder.get(id);
  if (holderId === undefined) return -1;
  return conversation.positionOf(holderId) ?? -1;
}

/** Slot of tool call `id` in `calls` (-1 if absent). Calls per message are few. */
export function slotOf(calls: readonly ToolCall[], id: string): number {
  for (let i = 0; i < calls.length; i++) if (calls[i]!.id === id) return i;
  return -1;
}

/** A copy of `holder` with `call` in `slot` of its tool calls. */
export function withCall(holder: AssistantMessage, slot: number, call: ToolCall): Message {
  const calls = holder.toolCalls!.slice();
  calls[slot] = call;
  // `holder` has `toolCalls` already: a plain spread keeps the fast path here (and beats `copyOf`).
  const copy: AssistantMessage = { ...holder };
  copy.toolCalls = calls;
  return copy;
}

/** `conversation` with `metadata` merged into tool call `id` of the holder at `position` (R-TOOL-5); without, as it is. */
function withCallMetadata(
  conversation: Conversation,
  position: number,
  id: string,
  metadata: Record<string, unknown> | undefined,
): Conversation {
  if (metadata === undefined) return conversation;
  const holder = conversation.at(position) as AssistantMessage;
  const slot = slotOf(holder.toolCalls!, id);
  return conversation.replaceAt(position, withCall(holder, slot, withMetadata(holder.toolCalls![slot]!, metadata)));
}

/** Position of the holder of the open tool call `id`; -1 when a snapshot removed it (D-SNAPSHOT-OPEN). */
function openCallPosition(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  id: string,
  code: "ORPHAN_CONTENT" | "ORPHAN_END",
): number {
  const { openToolCalls, removedToolCalls } = conversation.parts;
  if (!openToolCalls.has(id)) {
    if (removedToolCalls.has(id)) return -1;
    throw protocolError(code, "R-TOOL-6", event, ctx, [id], "no tool call with this id is open");
  }
  return holderPosition(conversation, id);
}
