import type { AguiEvent } from "../core/types";
import type { OpenStream } from "./lanes";
import { isInstant } from "../core/json";

/**
 * Builders of the events expansion synthesizes. They copy what R-PROC-15 lists — deltas, opener
 * fields, `metadata`, `rawEvent`, attribution — and never the chunk's `timestamp` (the synthesized
 * event was not produced at that time; arrival order is the protocol's order, R-EVT-3).
 * Values are shared, never deep-copied: `metadata` and `rawEvent` are the chunk's own objects.
 */

type Fields = Record<string, unknown>;

/** Adds the chunk fields every synthesized START/CONTENT carries (R-STREAM-18, R-PROC-15). */
function carryChunkFields(target: Fields, owner: string | undefined, chunk: AguiEvent): AguiEvent {
  if (owner !== undefined) target.subagentRunId = owner;
  if (chunk.metadata !== undefined) target.metadata = chunk.metadata;
  if (chunk.rawEvent !== undefined) target.rawEvent = chunk.rawEvent;
  return target as AguiEvent;
}

/** `*_START` for a stream the chunk opens: its id, the established opener fields, the family's fixed fields. */
export function startEvent(stream: OpenStream, chunk: AguiEvent): AguiEvent {
  const { family } = stream;
  const start = idLiteral(family.startType, family.idField, stream.id);
  for (let i = 0; i < family.openerFields.length; i++) {
    const value = stream.opener[i];
    if (value !== undefined) start[family.openerFields[i]!.name] = value;
  }
  for (const name in family.fixedStartFields) start[name] = family.fixedStartFields[name];
  const event = carryChunkFields(start, stream.owner, chunk);
  dateSynthesized(event, chunk);
  return event;
}

/**
 * `*_CONTENT` / `TOOL_CALL_ARGS` carrying the chunk's delta; `""` when the chunk has none but carries
 * metadata or a rawEvent that must still reach the item (D-META-CHUNK). Attributed to the lane's
 * owner, so an untagged continuation of a subagent's stream stays visibly the subagent's.
 */
export function contentEvent(stream: OpenStream, chunk: AguiEvent): AguiEvent {
  const { family } = stream;
  const text = chunk.delta === undefined ? "" : chunk.delta;
  // Static keys, for the reasons given at `idLiteral`; one chunk in a stream is one of these.
  const content: Fields =
    family.idField === "toolCallId"
      ? { type: family.contentType, toolCallId: stream.id, delta: text }
      : { type: family.contentType, messageId: stream.id, delta: text };
  return carryChunkFields(content, stream.owner, chunk);
}

/**
 * The synthesized `*_END`: only the id and the lane owner. No chunk caused it, so it carries no
 * chunk's metadata (the trigger is another event, or a chunk of another item).
 */
export function endEvent(stream: OpenStream, trigger: AguiEvent): AguiEvent {
  const end = idLiteral(stream.family.endType, stream.family.idField, stream.id);
  if (stream.owner !== undefined) end.subagentRunId = stream.owner;
  // Dated by its trigger (D-DURATION), never stamped with it (R-PROC-15).
  dateSynthesized(end as AguiEvent, trigger);
  return end as AguiEvent;
}

/**
 * `{ type, messageId | toolCallId }` with static keys. A computed key (`[family.idField]`) defeats
 * V8's literal boilerplate (a runtime call per event) and gives synthesized events hidden classes
 * other than those of the same events off the wire, which makes later stages' reads polymorphic.
 */
function idLiteral(type: string, idField: "messageId" | "toolCallId", id: string): Fields {
  return idField === "toolCallId" ? { type, toolCallId: id } : { type, messageId: id };
}

/**
 * The timestamp of the chunk (or trigger) that caused an event expansion synthesized. The event itself
 * never carries it (R-PROC-15, R-EVT-3); the history still dates a chunked reasoning message by its
 * chunks (D-DURATION). Only STARTs and ENDs are recorded (a CONTENT dates nothing), and a weak map
 * keeps nothing alive: the entry goes with the event.
 */
const synthesizedAt = new WeakMap<object, number>();

/** Records `cause`'s timestamp, when it has a valid one, for the synthesized `event`. */
export function dateSynthesized(event: AguiEvent, cause: AguiEvent): void {
  const stamp = cause.timestamp;
  if (isInstant(stamp)) synthesizedAt.set(event, stamp);
}

/** The timestamp recorded for a synthesized event, if any. */
export function synthesizedTimestampOf(event: AguiEvent): number | undefined {
  return synthesizedAt.get(event);
}
