import { isInstant, isPlainObject } from "../core/json";
import {
  NONE,
  passThrough,
  result,
  type AguiEvent,
  type Stage,
  type StepContext,
  type StepResult,
  type WarningOptions,
} from "../core/types";
import { protocolError } from "../core/errors";
import { FAMILY_BY_CHUNK_TYPE, type ChunkFamily } from "./chunk-families";
import { CLOSE_TRIGGERS, type CloseTrigger } from "./close-triggers";
import { addStream, closeAllLanes, closeLane, createExpandState, type ExpandState, type OpenStream } from "./lanes";
import { contentEvent, startEvent } from "./synthesize";

export type { ExpandState, OpenStream } from "./lanes";

/**
 * Stage 3: expands the three `*_CHUNK` families into START/CONTENT/END with one mechanism
 * (R-STREAM-7…18, D-SCOPE-FAMILIES), one open stream per lane (the owner's `subagentRunId`; absent =
 * the parent agent). A synthesized END goes just before the event that ends the stream (R-STREAM-15);
 * every other event passes as the same object. Nothing is synthesized at the end of the source
 * (D-TRUNC: a truncated run is reported downstream). No warnings: what it rejects is an error.
 */
export function createExpandStage(_options?: WarningOptions): Stage<ExpandState, AguiEvent, AguiEvent> {
  // Most events are not chunks and close nothing: one reused result passes them on without allocating.
  const pass = passThrough<ExpandState, AguiEvent>();
  return {
    name: "expandChunks",
    init: createExpandState,
    step: (state, event, ctx) => expandStep(state, event, ctx, pass),
    // D-TRUNC: end of source is not a close trigger; open streams stay open.
    finish: (state) => result(state),
  };
}

type Pass = (state: ExpandState, event: AguiEvent) => StepResult<ExpandState, AguiEvent>;

function expandStep(
  state: ExpandState,
  event: AguiEvent,
  ctx: StepContext,
  pass: Pass,
): StepResult<ExpandState, AguiEvent> {
  if (!isPlainObject(event) || typeof event.type !== "string") {
    throw protocolError(
      "MALFORMED_EVENT",
      "R-PROC-4",
      event,
      ctx,
      [],
      "an event must be an object with a string type.",
    );
  }
  const family = FAMILY_BY_CHUNK_TYPE.get(event.type);
  if (family !== undefined) return expandChunk(state, family, event, ctx);
  const trigger = CLOSE_TRIGGERS.get(event.type);
  if (trigger === undefined) return pass(state, event);
  return closeBefore(state, trigger, event, ctx, pass);
}

// ---------------------------------------------------------------------------------------------
// Non-chunk events

/** Synthesizes the ENDs `event` triggers (R-STREAM-9/15/17), then forwards `event` itself. */
function closeBefore(
  state: ExpandState,
  trigger: CloseTrigger,
  event: AguiEvent,
  ctx: StepContext,
  pass: Pass,
): StepResult<ExpandState, AguiEvent> {
  const tag = event.subagentRunId;
  if (trigger.scope === "owner" ? typeof tag !== "string" : tag !== undefined && typeof tag !== "string") {
    // The tag decides which lane closes; guessing it would conceal a value enforcement rejects.
    throw protocolError("MALFORMED_EVENT", "R-PROC-4", event, ctx, [], "/subagentRunId must be a string.");
  }
  if (state.lanes.size === 0) return pass(state, event);
  const out: AguiEvent[] = [];
  if (trigger.scope === "all") {
    closeAllLanes(state, out, event);
  } else {
    closeLane(state, tag as string | undefined, out, event);
    if (trigger.scope === "lane" && trigger.names !== undefined) {
      // An explicit event naming an item a chunk stream assembles in another lane ends that stream too.
      const id = event[trigger.names.idField];
      const named = typeof id === "string" ? state.byId[trigger.names.namespace].get(id) : undefined;
      if (named !== undefined) closeLane(state, named.owner, out, event);
    }
  }
  out.push(event);
  return result(state, out);
}

// ---------------------------------------------------------------------------------------------
// Chunks

/** The one expansion routine of every family. */
function expandChunk(
  state: ExpandState,
  family: ChunkFamily,
  chunk: AguiEvent,
  ctx: StepContext,
): StepResult<ExpandState, AguiEvent> {
  checkChunk(family, chunk, ctx);
  const id = chunk[family.idField] as string | undefined;
  const tag = chunk.subagentRunId as string | undefined;
  const open =
    id === undefined ? idlessStream(state, family, tag, chunk, ctx) : namedStream(state, family, id, tag, chunk, ctx);
  if (open !== undefined && open.family === family && (id === undefined || id === open.id)) {
    return continueStream(state, open, chunk, ctx);
  }
  // A new item in the lane of the stream this id was found in, else in the chunk's own lane.
  return openStream(state, family, id!, open !== undefined ? open.owner : tag, chunk, ctx);
}

/**
 * The stream open under a chunk's id, in any lane. Ids are unique per namespace, so a chunk of
 * another family naming that id ends it and opens its own item in that lane. A tag that disagrees
 * with the stream's owner is an attribution mismatch; an untagged chunk continues whatever the
 * opener owns (R-SUB-2).
 */
function namedStream(
  state: ExpandState,
  family: ChunkFamily,
  id: string,
  tag: string | undefined,
  chunk: AguiEvent,
  ctx: StepContext,
): OpenStream | undefined {
  const open = state.byId[family.namespace].get(id);
  if (open !== undefined && tag !== undefined && tag !== open.owner) {
    throw protocolError(
      "ATTRIBUTION_MISMATCH",
      "R-SUB-2",
      chunk,
      ctx,
      open.owner === undefined ? [id, tag] : [id, tag, open.owner],
      `the chunk's subagentRunId does not match the owner of the open ${open.family.itemName} stream (${ownerName(open.owner)}).`,
    );
  }
  // Undefined: the id is open nowhere, so the chunk opens a new item in its own lane.
  return open;
}

/**
 * The stream an id-less chunk continues (R-STREAM-12/16): its tagged lane; untagged, the parent's
 * stream of its kind, else the sole subagent stream of its kind. None → it is a first chunk without
 * an id (R-STREAM-11); several → ambiguous.
 */
function idlessStream(
  state: ExpandState,
  family: ChunkFamily,
  tag: string | undefined,
  chunk: AguiEvent,
  ctx: StepContext,
): OpenStream {
  const inLane = state.lanes.get(tag);
  if (inLane !== undefined && inLane.family === family) return inLane;
  if (tag === undefined) {
    const candidates = state.inSubagentLanes[family.index]!;
    if (candidates.size === 1) return candidates.values().next().value!;
    if (candidates.size > 1) {
      throw protocolError(
        "AMBIGUOUS_CONTINUATION",
        "R-STREAM-16",
        chunk,
        ctx,
        // Subagent lanes only: every owner is a subagentRunId.
        [...candidates].map((s) => s.owner!),
        `the chunk carries neither a ${family.idField} nor a subagentRunId, and ${candidates.size} subagent lanes have an open ${family.itemName} stream (none in the parent lane); attribute the chunk to its subagent.`,
      );
    }
  }
  throw protocolError(
    "FIRST_CHUNK_WITHOUT_ID",
    "R-STREAM-11",
    chunk,
    ctx,
    tag === undefined ? [] : [tag],
    `First ${family.chunkType} must have a ${family.idField}: no ${family.itemName} chunk stream is open in ${ownerName(tag)}'s lane to continue, and no id is ever invented.`,
  );
}

/** Continuation (R-STREAM-12/13/14): CONTENT when the chunk has a delta, or metadata/rawEvent to deliver (D-META-CHUNK). */
function continueStream(
  state: ExpandState,
  open: OpenStream,
  chunk: AguiEvent,
  ctx: StepContext,
): StepResult<ExpandState, AguiEvent> {
  const { family } = open;
  for (let i = 0; i < family.openerFields.length; i++) {
    const name = family.openerFields[i]!.name;
    const value = chunk[name];
    if (value !== undefined && value !== open.opener[i]) {
      throw protocolError(
        "CONFLICTING_CHUNK_FIELD",
        "R-STREAM-14",
        chunk,
        ctx,
        [open.id],
        `Cannot continue ${family.itemName}: chunk field /${name} does not match the open stream's ${name}${open.opener[i] === undefined ? " (absent)" : ""}.`,
      );
    }
  }
  if (chunk.delta === undefined && chunk.metadata === undefined && chunk.rawEvent === undefined) {
    return result(state, NONE);
  }
  return result(state, [contentEvent(open, chunk)]);
}

/**
 * Opens a new item in `owner`'s lane (R-STREAM-10/11/13): ends that lane's stream first (whatever
 * its family, R-STREAM-15a/b), emits START, and CONTENT when the chunk has a delta (even `""`,
 * D-SEED-001). A chunk without a delta yields START alone; its metadata rides on the START.
 */
function openStream(
  state: ExpandState,
  family: ChunkFamily,
  id: string,
  owner: string | undefined,
  chunk: AguiEvent,
  ctx: StepContext,
): StepResult<ExpandState, AguiEvent> {
  const opener: (string | undefined)[] = [];
  for (const field of family.openerFields) {
    const value = chunk[field.name] as string | undefined;
    if (value === undefined && field.required) {
      throw protocolError(
        "FIRST_CHUNK_WITHOUT_ID",
        "R-STREAM-11",
        chunk,
        ctx,
        [id],
        `First ${family.chunkType} must have a ${field.name}: the chunk opens a new ${family.itemName} and nothing is invented for it.`,
      );
    }
    opener.push(value === undefined ? field.byOmission : value);
  }
  const out: AguiEvent[] = [];
  closeLane(state, owner, out, chunk);
  const stream: OpenStream = { family, id, owner, opener };
  addStream(state, stream);
  out.push(startEvent(stream, chunk));
  if (chunk.delta !== undefined) out.push(contentEvent(stream, chunk));
  return result(state, out);
}

const ownerName = (owner: string | undefined): string => (owner === undefined ? "the parent agent" : "the subagent");

/**
 * Judges a chunk's described fields as the schema does before expanding it (R-STREAM-8, R-PROC-16):
 * the operator may run alone, and a synthesized event would conceal a bad value (`delta: 5`,
 * `metadata: null`, a float `timestamp` dropped). Nothing is coerced; the first bad field fails with
 * `MALFORMED_EVENT`. Undescribed fields are enforcement's business and are not carried over.
 */
function checkChunk(family: ChunkFamily, chunk: AguiEvent, ctx: StepContext): void {
  const bad = firstBadField(family, chunk);
  if (bad !== undefined) {
    throw protocolError(
      "MALFORMED_EVENT",
      "R-PROC-16",
      chunk,
      ctx,
      [],
      `${bad} when present; a malformed chunk is rejected, never repaired.`,
    );
  }
}

/** What the first bad field must be (`/delta must be a string`), if any. */
function firstBadField(family: ChunkFamily, chunk: AguiEvent): string | undefined {
  if (!isOptionalString(chunk[family.idField])) return `/${family.idField} must be a string`;
  if (!isOptionalString(chunk.delta)) return "/delta must be a string";
  if (!isOptionalString(chunk.subagentRunId)) return "/subagentRunId must be a string";
  if (chunk.metadata !== undefined && !isPlainObject(chunk.metadata)) return "/metadata must be an object";
  if (chunk.rawEvent === null) return "/rawEvent must be a JSON value other than null";
  const timestamp = chunk.timestamp;
  if (timestamp !== undefined && !isInstant(timestamp)) return "/timestamp must be an integer within ±(2^53−1)";
  for (const field of family.openerFields) {
    const value = chunk[field.name];
    if (value === undefined) continue;
    if (typeof value !== "string") return `/${field.name} must be a string`;
    if (field.oneOf !== undefined && !field.oneOf.has(value)) {
      return `/${field.name} must be one of ${[...field.oneOf].join(", ")}`;
    }
  }
  return undefined;
}

const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === "string";
