import { EventType } from "@ag-ui/core";
import {
  passThrough,
  result,
  type AguiEvent,
  type Stage,
  type StepContext,
  type StepResult,
  type WarningOptions,
} from "../core/types";
import { rawType } from "../core/json";
import { LEGACY_THINKING, type LegacyItem, type LegacyShape } from "./legacy-thinking";
import { expiryTime } from "./thinking-expiry";
import { placeTitle } from "./thinking-title";
import { translatedEvent } from "./translated-event";
import { legacyDuplicateOpen, legacyOrphan, malformedTitle, unreadableLegacy } from "./upcast-errors";
import { titleDroppedWarning, titleMovedWarning, upcastWarning } from "./upcast-warnings";
import { optionsOf } from "../core/arguments";

export interface UpcastOptions extends WarningOptions {
  /** Mints ids for THINKING_* events that carry none (D-THINK-IDS). Default crypto.randomUUID(). */
  idFactory?: () => string;
  /**
   * When the translation expires (R-DEP-3, R-VER-13); from then on `THINKING_*` pass through untranslated
   * and enforcement drops them as unknown types. Default `2027-09-17` (UTC), twelve months after the 1.0 release.
   */
  expiresAt?: Date | string;
  /** The clock the expiry is judged by, once per subscription (default: the system clock). */
  now?: () => Date;
}

/** The private state of the upcaster: what the legacy stream has open. */
export interface UpcastState {
  /** Id given to the open legacy span (THINKING_START … THINKING_END); continuations reuse it (D-THINK-IDS). */
  readonly span: string | undefined;
  /** Id given to the open legacy message (THINKING_TEXT_MESSAGE_START … _END). */
  readonly message: string | undefined;
  /**
   * The translation had expired when the subscription started (R-VER-13). Judged once, so a stream
   * never switches behaviour half-way through a legacy span.
   */
  readonly expired: boolean;
}

type Obj = Record<string, unknown>;

/**
 * Stage 1, the compatibility boundary: translates the retired 0.x `THINKING_*` events into their
 * `REASONING_*` replacements (R-DEP-2/5, R-VER-10/11). It is the first stage (R-PROC-13) and sees raw
 * input: anything that is not a `THINKING_*` object (including `null`, numbers and arrays) passes
 * through as the same value, for enforcement to judge.
 *
 * - Ids (D-THINK-IDS): a `messageId` the legacy event carries is used if it is a non-empty string;
 *   otherwise an opener mints one with `idFactory`, and continuations reuse the open item's id.
 * - `THINKING_START.title` moves into the span's metadata (D-THINK-TITLE).
 * - Every translation warns `THINKING_UPCAST` (R-DEP-4). Other fields (envelope included) are
 *   copied as they are; a malformed value is left for enforcement to reject, never coerced.
 * - A continuation or close with nothing of its kind open fails with `LEGACY_ORPHAN`
 *   (D-THINK-ORPHAN); an opener while its kind is open fails with `DUPLICATE_OPEN`.
 * - `RUN_STARTED` and `RUN_ERROR` forget what was open: nothing survives into a new run, and a
 *   `RUN_ERROR` ends whatever was open (R-RUN-11). `RUN_FINISHED` does not: a run cannot finish
 *   with a legacy item open (verification fails it, R-REASON-13).
 */
export function createUpcastStage(options?: UpcastOptions): Stage<UpcastState, unknown, AguiEvent> {
  options = optionsOf(options, "upcastThinking");
  const mint = idMinter(options.idFactory);
  // Nearly every event is not legacy and passes untouched: one reused result, no allocation.
  const pass = passThrough<UpcastState, AguiEvent>();
  const expiry = expiryTime(options.expiresAt);
  const clock = options.now ?? (() => new Date());
  return {
    name: "upcastThinking",
    // From the expiry instant on, the translation is gone (R-VER-13).
    init: () => ({ span: undefined, message: undefined, expired: clock().getTime() >= expiry }),
    step: (state, event, ctx) => upcastStep(state, event, ctx, mint, pass),
  };
}

function upcastStep(
  state: UpcastState,
  event: unknown,
  ctx: StepContext,
  mint: () => string,
  pass: (state: UpcastState, event: AguiEvent) => StepResult<UpcastState, AguiEvent>,
): StepResult<UpcastState, AguiEvent> {
  // Raw input: not yet validated, so every read is guarded; whatever is not ours passes untouched.
  const type = rawType(event);
  if (typeof type !== "string") return pass(state, event as AguiEvent);
  const shape = LEGACY_THINKING.get(type);
  if (shape === undefined) {
    if ((type === EventType.RUN_STARTED || type === EventType.RUN_ERROR) && isAnyOpen(state)) {
      return result(nothingOpen(state), [event as AguiEvent]);
    }
    return pass(state, event as AguiEvent);
  }
  if (state.expired || Array.isArray(event)) return pass(state, event as AguiEvent);
  const fields = readFields(event as object);
  if (fields === undefined) throw unreadableLegacy(type, event, ctx);
  return translate(state, shape, fields, event, ctx, mint);
}

/**
 * A legacy event's own fields as plain data, each read exactly once, or `undefined` when one cannot
 * be read. Translation then never touches a getter or proxy trap again (no TypeError mid-way).
 */
function readFields(event: object): Obj | undefined {
  try {
    return { ...event };
  } catch {
    return undefined;
  }
}

/** Translates the legacy event's `fields` (read once from `raw`, which errors carry as their `event`). */
function translate(
  state: UpcastState,
  shape: LegacyShape,
  event: Obj,
  raw: unknown,
  ctx: StepContext,
  mint: () => string,
): StepResult<UpcastState, AguiEvent> {
  const carried = carriedId(event);
  const open = state[shape.item];
  if (shape.action === "open") {
    if (open !== undefined) throw legacyDuplicateOpen(shape, open, carried, raw, ctx);
    const id = carried ?? mint();
    const next = withOpen(state, shape.item, id);
    return shape.item === "span"
      ? openSpan(next, shape, event, raw, id, ctx)
      : openMessage(next, shape, event, id, ctx);
  }
  // D-THINK-ORPHAN: checked before any id is chosen, so none is minted for an orphan.
  if (open === undefined) throw legacyOrphan(shape, carried, raw, ctx);
  const id = carried ?? open;
  const next = shape.action === "close" ? withOpen(state, shape.item, undefined) : state;
  return result(next, [translatedEvent(event, { type: shape.target, messageId: id })], [upcastWarning(shape, id, ctx)]);
}

/** THINKING_START → REASONING_START; the title moves into metadata (D-THINK-TITLE). */
function openSpan(
  state: UpcastState,
  shape: LegacyShape,
  event: Obj,
  raw: unknown,
  id: string,
  ctx: StepContext,
): StepResult<UpcastState, AguiEvent> {
  const upcast = upcastWarning(shape, id, ctx);
  const title = event.title;
  if (title === undefined) {
    return result(state, [translatedEvent(event, { type: shape.target, messageId: id }, "title")], [upcast]);
  }
  if (typeof title !== "string") throw malformedTitle(title, raw, ctx);
  const placement = titlePlacement(event.metadata, title, shape, raw, ctx);
  switch (placement.kind) {
    case "left":
      // Malformed metadata: enforcement rejects the event; the title stays where it was.
      return result(state, [translatedEvent(event, { type: shape.target, messageId: id })], [upcast]);
    case "dropped":
      return result(
        state,
        [translatedEvent(event, { type: shape.target, messageId: id }, "title")],
        [upcast, titleDroppedWarning(id, ctx)],
      );
    case "moved": {
      const translated = translatedEvent(
        event,
        { type: shape.target, messageId: id, metadata: placement.metadata },
        "title",
      );
      return result(state, [translated], [upcast, titleMovedWarning(id, ctx)]);
    }
  }
}

/**
 * `placeTitle`, where a throw becomes MALFORMED_EVENT: merging the title reads the producer's
 * metadata, which may be a hostile object (a proxy whose traps throw or lie, a throwing getter).
 */
function titlePlacement(
  metadata: unknown,
  title: string,
  shape: LegacyShape,
  raw: unknown,
  ctx: StepContext,
): ReturnType<typeof placeTitle> {
  try {
    return placeTitle(metadata, title);
  } catch {
    throw unreadableLegacy(shape.legacyType, raw, ctx);
  }
}

/**
 * THINKING_TEXT_MESSAGE_START → REASONING_MESSAGE_START with the fixed role (R-SCHEMA-2). A role the
 * legacy event carries itself is the producer's value: it is kept for enforcement to judge.
 */
function openMessage(
  state: UpcastState,
  shape: LegacyShape,
  event: Obj,
  id: string,
  ctx: StepContext,
): StepResult<UpcastState, AguiEvent> {
  const role = event.role === undefined ? "reasoning" : event.role;
  return result(
    state,
    [translatedEvent(event, { type: shape.target, messageId: id, role })],
    [upcastWarning(shape, id, ctx)],
  );
}

/** D-THINK-IDS: a carried `messageId` counts only as a non-empty string. */
function carriedId(event: Obj): string | undefined {
  const id = event.messageId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function idMinter(idFactory: (() => string) | undefined): () => string {
  if (idFactory === undefined) return () => globalThis.crypto.randomUUID();
  return () => {
    const id = idFactory();
    if (typeof id !== "string" || id === "") {
      throw new TypeError(
        `upcastThinking: idFactory must return a non-empty string, got ${id === "" ? "an empty string" : typeof id}`,
      );
    }
    return id;
  };
}

function isAnyOpen(state: UpcastState): boolean {
  return state.span !== undefined || state.message !== undefined;
}

function nothingOpen(state: UpcastState): UpcastState {
  return { span: undefined, message: undefined, expired: state.expired };
}

// States are built field by field: a spread with an override is a slow path in V8.
function withOpen(state: UpcastState, item: LegacyItem, id: string | undefined): UpcastState {
  return item === "span"
    ? { span: id, message: state.message, expired: state.expired }
    : { span: state.span, message: id, expired: state.expired };
}
