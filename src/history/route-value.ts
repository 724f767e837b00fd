import type { AssistantMessage } from "@ag-ui/core";
import { plural } from "../core/plural";
import { NONE, result } from "../core/types";
import type { AguiEvent, StepContext, StepResult } from "../core/types";
import type { Conversation } from "./conversation";
import { holderPosition, slotOf, withCall } from "./apply-tool-calls";
import { recordIssuer } from "./issuers";
import { copyOf, readString, warning } from "./read-event";
import { byteLength } from "../core/json";

/**
 * REASONING_ENCRYPTED_VALUE (R-REASON-15…22): stored exactly as sent ("" included, R-REASON-16, #74)
 * on the message `entityId` names (any role but activity, R-SCHEMA-8) or on that `ToolCall` of an
 * assistant message (R-SCHEMA-9), replacing the target immutably; a later value replaces it
 * (D-REPEAT); the issuer is recorded (D-ISSUER); the event's metadata lands nowhere (R-META-5).
 * A target unknown, an activity message, a span, not streamed yet (D-FORWARD) or removed by a
 * snapshot: dropped with a lossy `UNKNOWN_ENTITY` (D-UNKNOWN-ENTITY), never a failure or a pre-created target.
 */
export function routeEncryptedValue(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<Conversation, AguiEvent> {
  const subtype = readString(event, "subtype", ctx);
  const entityId = readString(event, "entityId", ctx);
  const value = readString(event, "encryptedValue", ctx);

  if (subtype === "message") {
    const position = conversation.positionOf(entityId);
    const held = position === undefined ? undefined : conversation.at(position)!;
    if (held === undefined || held.role === "activity") {
      const what =
        held === undefined ? "no message this history holds" : "an activity message, which cannot hold a value";
      return unknownEntity(conversation, event, ctx, entityId, `names ${what}`, value);
    }
    const stored =
      held.encryptedValue === value ? conversation : conversation.replaceAt(position!, withValue(held, value));
    return recordIssuer(stored, "message", entityId, held.role === "tool").passing(event);
  }

  if (subtype === "tool-call") {
    const position = holderPosition(conversation, entityId);
    if (position < 0)
      return unknownEntity(conversation, event, ctx, entityId, "names no tool call this history holds", value);
    const holder = conversation.at(position) as AssistantMessage;
    const slot = slotOf(holder.toolCalls!, entityId);
    const call = holder.toolCalls![slot]!;
    const stored =
      call.encryptedValue === value
        ? conversation
        : conversation.replaceAt(position, withCall(holder, slot, withValue(call, value)));
    return recordIssuer(stored, "tool-call", entityId).passing(event);
  }

  // An unrecognised string subtype is a newer union member: the event is removed (R-REASON-24), as
  // enforcement would have done upstream (same code).
  const w = warning(
    "UNKNOWN_SUBTYPE",
    "R-REASON-24",
    event,
    ctx,
    [entityId],
    `subtype is not one this consumer knows; the event was removed and its value (${byteLength(value)} bytes) dropped`,
    "/subtype",
  );
  return result(conversation, NONE, [w]);
}

/**
 * A copy of `target` with `encryptedValue` set (kept in its place if it was there, else last, as
 * `{ ...target, encryptedValue }`). `copyOf`, then assign: a spread with an overriding key, or a
 * plain spread gaining a new key, takes V8's slow path, ≈ 0.5–0.8 µs per value (issue 13).
 */
function withValue<T extends { encryptedValue?: string }>(target: T, value: string): T {
  const copy = copyOf(target);
  copy.encryptedValue = value;
  return copy;
}

function unknownEntity(
  conversation: Conversation,
  event: AguiEvent,
  ctx: StepContext,
  entityId: string,
  why: string,
  value: string,
): StepResult<Conversation, AguiEvent> {
  const w = warning(
    "UNKNOWN_ENTITY",
    "D-UNKNOWN-ENTITY",
    event,
    ctx,
    [entityId],
    `REASONING_ENCRYPTED_VALUE ${why} (unknown, not streamed yet, or removed by a snapshot); the event was dropped and its value (${plural(byteLength(value), "byte")}) not stored`,
  );
  return result(conversation, NONE, [w]);
}
