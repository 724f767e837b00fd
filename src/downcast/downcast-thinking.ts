import { EventType } from "@ag-ui/core";
import { byteLength, isPlainObject } from "../core/json";
import type { OperatorFunction } from "rxjs";
import { protocolError, type ReasoningProtocolError } from "../core/errors";
import { stageOperator } from "../core/stage-operator";
import { optionsOf } from "../core/arguments";
import {
  NONE,
  result,
  type AguiEvent,
  type ReasoningWarning,
  type Stage,
  type StepContext,
  type StepResult,
  type WarningOptions,
} from "../core/types";
import { catalogued } from "../core/warning-codes";
import { ROUTES, type Family } from "../discipline/families";
import { THINKING_BY_REASONING, type LegacyShape } from "../upcast/legacy-thinking";
import { DowncastError } from "./downcast-error";
import { recoverTitle } from "./thinking-title";

export { DowncastError } from "./downcast-error";

export type DowncastOptions = WarningOptions;

/**
 * What the downgraded stream has open. 0.x had one thinking span and one thinking message at a
 * time, identified by nothing (R-DEP-5); the 1.0 ids are kept to check that the events arriving
 * belong to them.
 */
export interface DowncastState {
  readonly span: string | undefined;
  readonly message: string | undefined;
}

type Obj = Record<string, unknown>;

const NOTHING_OPEN: DowncastState = Object.freeze({ span: undefined, message: undefined });

/**
 * `REASONING_*` → retired `THINKING_*` for pre-1.0 consumers, the upcast read backwards (R-DEP-2):
 * it removes and reshapes, never invents (R-VER-3); every loss is a lossy warning (R-VER-6/7):
 *
 * - REASONING_START/END → THINKING_START/END; REASONING_MESSAGE_START/CONTENT/END →
 *   THINKING_TEXT_MESSAGE_START/CONTENT/END. The 0.x shapes have no ids: `DOWNCAST_ID_DROPPED` once
 *   per span or message (at its START). `role` (fixed) and `subagentRunId` go silently (R-VER-5).
 * - `metadata["agui-reasoning"].thinkingTitle` goes back to `title` (D-THINK-TITLE); any other
 *   metadata is dropped (`DOWNCAST_METADATA_DROPPED`). `timestamp` and `rawEvent` are kept.
 * - REASONING_ENCRYPTED_VALUE is dropped (`DOWNCAST_VALUE_DROPPED`, R-REASON-19).
 * - A second span or message open at once (0.x had one at a time) fails with a `DowncastError`
 *   (`NOT_REPRESENTABLE`): serializing would reorder (R-VER-21) and buffer, merging would invent text.
 * - Chunks must be expanded first (after `expandChunks` or the facade's `events$`). Others pass.
 */
export function createDowncastStage(_options?: DowncastOptions): Stage<DowncastState, AguiEvent, AguiEvent> {
  return { name: "downcastToThinking", init: () => NOTHING_OPEN, step: downcastStep };
}

/** The `downcastToThinking` operator: `createDowncastStage` through the generic adapter. */
export function downcastToThinking(options?: DowncastOptions): OperatorFunction<AguiEvent, AguiEvent> {
  options = optionsOf(options, "downcastToThinking");
  return stageOperator(createDowncastStage(options), options);
}

function downcastStep(state: DowncastState, event: AguiEvent, ctx: StepContext): StepResult<DowncastState, AguiEvent> {
  if (!isPlainObject(event)) return result(state, [event]);
  const type = event.type;
  const shape = typeof type === "string" ? THINKING_BY_REASONING.get(type) : undefined;
  if (shape !== undefined) return translate(state, shape, event, ctx);
  switch (type) {
    case EventType.REASONING_ENCRYPTED_VALUE:
      return result(state, NONE, [valueDropped(event, ctx)]);
    case EventType.REASONING_MESSAGE_CHUNK:
      throw protocolError(
        "MALFORMED_EVENT",
        "R-STREAM-7",
        event,
        ctx,
        [],
        "chunks must be expanded before downcastToThinking (place it after expandChunks): 0.x had no chunk form.",
      );
    case EventType.RUN_STARTED:
    case EventType.RUN_FINISHED:
    case EventType.RUN_ERROR:
      // A run boundary ends whatever was open (R-RUN-11); nothing carries into the next run.
      return result(NOTHING_OPEN, [event]);
    default:
      return result(state, [event]);
  }
}

function translate(
  state: DowncastState,
  shape: LegacyShape,
  event: AguiEvent,
  ctx: StepContext,
): StepResult<DowncastState, AguiEvent> {
  const id = event.messageId;
  if (typeof id !== "string")
    throw protocolError("MALFORMED_EVENT", "R-REASON-23", event, ctx, [], "/messageId must be a string.");
  const open = state[shape.item];
  const out: Obj = { type: shape.legacyType };
  const warnings: ReasoningWarning[] = [];
  let next = state;
  if (shape.action === "open") {
    if (open !== undefined) {
      const detail =
        `a second ${shape.item} opened while one is open: ${shape.legacyType} has no id, so a 0.x consumer can follow one ${shape.item} at a time; ` +
        "the stream is not translated further (serializing would reorder events, R-VER-21).";
      throw new DowncastError("R-DEP-5", ctx, shape.target, [open, id], detail, event);
    }
    next = { ...state, [shape.item]: id };
    warnings.push(idDropped(shape, id, ctx));
  } else {
    if (open !== id) throw notOpen(shape, id, event, ctx);
    if (shape.action === "close") next = { ...state, [shape.item]: undefined };
    else {
      const delta = event.delta;
      if (typeof delta !== "string")
        throw protocolError("MALFORMED_EVENT", "R-REASON-23", event, ctx, [id], "/delta must be a string.");
      out.delta = delta;
    }
  }
  if (event.metadata !== undefined) {
    // A THINKING_START gets its title back; the rest of the metadata is lost.
    const recovered = recoverTitle(event.metadata, shape.legacyType === "THINKING_START");
    if (recovered.title !== undefined) out.title = recovered.title;
    if (recovered.dropped.length > 0) warnings.push(metadataDropped(shape, id, recovered.dropped, ctx));
  }
  if (event.timestamp !== undefined) out.timestamp = event.timestamp;
  if (event.rawEvent !== undefined) out.rawEvent = event.rawEvent;
  return result(next, [out as AguiEvent], warnings);
}

// ---------------------------------------------------------------------------------------------
// Warnings and errors. Each warning reports content a 0.x consumer will not get, so each is lossy: a custom
// sink always receives it and `quiet` does not silence it (R-VER-6/7, R-REASON-19). Messages name types, ids,
// JSON paths and byte lengths only (D-REDACT).

function idDropped(shape: LegacyShape, id: string, ctx: StepContext): ReasoningWarning {
  return catalogued("DOWNCAST_ID_DROPPED", "R-VER-6", {
    message: `${shape.target} became ${shape.legacyType}, which has no id (0.x, R-DEP-5): the ${shape.item}'s identity is lost; upgrade the consumer to AG-UI 1.0 to keep it`,
    eventType: shape.target,
    eventIndex: ctx.index,
    ids: [id],
    path: "/messageId",
  });
}

function metadataDropped(shape: LegacyShape, id: string, paths: readonly string[], ctx: StepContext): ReasoningWarning {
  const listed = paths.slice(0, 5).join(", ") + (paths.length > 5 ? ` (+${paths.length - 5} more)` : "");
  return catalogued("DOWNCAST_METADATA_DROPPED", "R-VER-6", {
    message: `${shape.legacyType} has no metadata (0.x): ${listed} dropped; upgrade the consumer to AG-UI 1.0 to keep it`,
    eventType: shape.target,
    eventIndex: ctx.index,
    ids: [id],
    path: "/metadata",
  });
}

function valueDropped(event: AguiEvent, ctx: StepContext): ReasoningWarning {
  const entityId = typeof event.entityId === "string" ? event.entityId : undefined;
  const value = event.encryptedValue;
  const size = typeof value === "string" ? ` (${byteLength(value)} bytes)` : "";
  return catalogued("DOWNCAST_VALUE_DROPPED", "R-REASON-19", {
    message: `REASONING_ENCRYPTED_VALUE has no 0.x form: the encrypted value${size} was dropped and the producer cannot restore that reasoning context (R-VER-6); upgrade the consumer to AG-UI 1.0 to keep it`,
    eventType: EventType.REASONING_ENCRYPTED_VALUE,
    eventIndex: ctx.index,
    ids: entityId === undefined ? [] : [entityId],
    path: "/encryptedValue",
  });
}

/** What verification says of such an event (its family's orphan rule): the input was not verified. */
function notOpen(shape: LegacyShape, id: string, event: AguiEvent, ctx: StepContext): ReasoningProtocolError {
  const { family } = ROUTES.get(shape.target) as { readonly family: Family };
  const code = shape.action === "close" ? "ORPHAN_END" : "ORPHAN_CONTENT";
  const detail = `no ${family.noun} with this id is open; downcastToThinking expects verified events.`;
  return protocolError(code, family.rules.orphan, event, ctx, [id], detail);
}
