import type { OperatorFunction } from "rxjs";
import { byteLength, isPlainObject } from "../core/json";
import { quotedId } from "../core/errors";
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
import type { Family } from "../discipline/families";
import type { LegacyShape } from "../upcast/legacy-thinking";
import { closingEvent, idsOf, repairedRunError } from "./closing-events";
import { REPAIR_ROUTES } from "./repair-routes";
import { RepairState } from "./repair-state";
import { repairWarning } from "./repair-warnings";

export { RepairState } from "./repair-state";
export { REPAIRED_TRUNCATION } from "./closing-events";

export type RepairOptions = WarningOptions;

type Obj = Record<string, unknown>;
type Step = StepResult<RepairState, unknown>;

/**
 * Opt-in repair for UIs that prefer a degraded display to a failed run, in front of the strict
 * pipeline (`reasoningPipeline(source.pipe(repairStream()))`) or after it. It fixes the *sequence*,
 * never the shape of an event: a malformed one passes for strict validation to reject (R-VER-4).
 *
 * - CONTENT/END (or a legacy continuation) for an item that is not open: dropped (R-REASON-9/10/14).
 * - START (or a chunk, or a legacy opener) for an item already open: dropped (R-REASON-10/11).
 * - Items open at RUN_FINISHED: closed by synthesized ENDs just before it (R-REASON-13).
 * - The source ends inside a run, or RUN_STARTED arrives inside one: the open items are closed and
 *   a RUN_ERROR with code `REPAIRED_TRUNCATION` ends the run — never a RUN_FINISHED (D-TRUNC).
 * - Events outside a run: dropped (R-RUN-1/8).
 * - SUBAGENT_STARTED naming a `parentSubagentRunId` not announced in this run: dropped (lossy: the
 *   invocation's name and nesting); its SUBAGENT_FINISHED then goes as an orphan (R-SUB-5, issue 12).
 *
 * Every repair is a `REPAIRED_*` warning naming the ids (lossy when content is lost). Chunk streams
 * are closed by the run-level events that end a run (R-STREAM-15c); repair keeps no chunk lanes.
 */
export function createRepairStage(_options?: RepairOptions): Stage<RepairState, unknown, unknown> {
  return { name: "repairStream", init: () => new RepairState(), step: repairStep, finish: repairFinish };
}

/** The `repairStream` operator: `createRepairStage` through the generic adapter. Opt-in, never default. */
export function repairStream<T = unknown>(options?: RepairOptions): OperatorFunction<T, T | AguiEvent> {
  options = optionsOf(options, "repairStream");
  return stageOperator(createRepairStage(options), options) as OperatorFunction<T, T | AguiEvent>;
}

function repairStep(state: RepairState, event: unknown, ctx: StepContext): Step {
  // Judged by the strict stages downstream, never reshaped here: non-objects, unknown types, bad fields.
  if (!isPlainObject(event)) return pass(state, event);
  const type = (event as { type?: unknown }).type;
  const route = typeof type === "string" ? REPAIR_ROUTES.get(type) : undefined;
  if (route === undefined) return pass(state, event);
  const e = event as Obj;
  switch (route.kind) {
    case "run-started":
      return startRun(state, e, ctx);
    case "run-finished":
      return finishRun(state, e, ctx);
    case "run-error":
      return errorRun(state, e, ctx);
    default:
      break; // every other kind acts only inside a run, below
  }
  if (state.phase !== "active") return outsideRun(state, e, ctx);
  switch (route.kind) {
    case "open":
      return openItem(state, route.family, e, ctx);
    case "continue":
    case "close":
      return continueItem(state, route.family, route.kind === "close", e, ctx);
    case "chunk":
      return chunk(state, route.family, route.idField, e, ctx);
    case "legacy":
      return legacy(state, route.shape, e, ctx);
    case "in-run":
      return pass(state, e);
  }
}

/** The source completed: a run still open is closed and reported failed (D-TRUNC), never finished. */
function repairFinish(state: RepairState, ctx: StepContext): Step {
  if (state.phase !== "active") return result(state);
  const { out, warning } = abandonRun(state, undefined, ctx, "REPAIRED_TRUNCATED_RUN", "the source ended");
  return result(state, out, [warning]);
}

// ---------------------------------------------------------------------------------------------
// Run lifecycle

/** Every way out of a run forgets its items: a run starts with nothing open. */
function startRun(state: RepairState, event: Obj, ctx: StepContext): Step {
  const nested = state.phase === "active";
  const abandoned = nested ? abandonRun(state, event, ctx, "REPAIRED_NESTED_RUN", "RUN_STARTED arrived") : undefined;
  state.phase = "active";
  state.runId = typeof event.runId === "string" ? event.runId : undefined;
  if (abandoned === undefined) return pass(state, event);
  abandoned.out.push(event);
  return result(state, abandoned.out, [abandoned.warning]);
}

/** Closes every open item, then a RUN_ERROR: the run ends failed (shared by truncation and a nested RUN_STARTED). */
function abandonRun(
  state: RepairState,
  event: Obj | undefined,
  ctx: StepContext,
  code: "REPAIRED_TRUNCATED_RUN" | "REPAIRED_NESTED_RUN",
  cause: string,
): { out: unknown[]; warning: ReasoningWarning } {
  const items = state.openItems();
  const out: unknown[] = items.map(closingEvent);
  const what = `${cause} while ${state.runId === undefined ? "a run" : `run ${quotedId(state.runId)}`} was open`;
  out.push(repairedRunError(`${what}; ${items.length} open item(s) were closed and the run is reported failed`));
  const warning = repairWarning(
    code,
    code === "REPAIRED_TRUNCATED_RUN" ? "D-TRUNC" : "R-RUN-9",
    event,
    ctx,
    idsOf(items),
    `${what}: synthesized ${items.length} END event(s) and a RUN_ERROR (code REPAIRED_TRUNCATION); whatever the run would still have sent is lost`,
  );
  state.forgetRun();
  state.phase = "errored";
  return { out, warning };
}

function finishRun(state: RepairState, event: Obj, ctx: StepContext): Step {
  if (state.phase !== "active") return outsideRun(state, event, ctx);
  state.phase = "finished";
  if (state.count === 0) {
    state.forgetRun();
    return pass(state, event);
  }
  const items = state.openItems();
  const out: unknown[] = items.map(closingEvent);
  out.push(event);
  const w = repairWarning(
    "REPAIRED_CLOSED_AT_FINISH",
    "R-REASON-13",
    event,
    ctx,
    idsOf(items),
    `${items.length} item(s) still open at RUN_FINISHED were closed by END events synthesized before it`,
  );
  state.forgetRun();
  return result(state, out, [w]);
}

/** RUN_ERROR ends the run and whatever was open (R-RUN-11); after another RUN_ERROR only RUN_STARTED may follow (R-RUN-8). */
function errorRun(state: RepairState, event: Obj, ctx: StepContext): Step {
  if (state.phase === "errored") return outsideRun(state, event, ctx);
  state.phase = "errored";
  state.forgetRun();
  return pass(state, event);
}

function outsideRun(state: RepairState, event: Obj, ctx: StepContext): Step {
  const where = state.phase === "none" ? "before the first RUN_STARTED" : `after the run ended (${state.phase})`;
  const w = repairWarning(
    "REPAIRED_OUTSIDE_RUN_DROPPED",
    state.phase === "none" ? "R-RUN-1" : "R-RUN-8",
    event,
    ctx,
    NONE,
    `${String(event.type)} ${where} was dropped${lostText(event)}`,
  );
  return result(state, NONE, [w]);
}

// ---------------------------------------------------------------------------------------------
// Items

function openItem(state: RepairState, family: Family, event: Obj, ctx: StepContext): Step {
  const id = event[family.key];
  const owner = event.subagentRunId;
  if (typeof id !== "string" || (owner !== undefined && typeof owner !== "string")) return pass(state, event);
  const itemOwner = family.attributed ? owner : undefined;
  const parent = family.parentField === undefined ? undefined : event[family.parentField];
  if (typeof parent === "string" && !announced(state, family, parent)) {
    // Repaired by dropping the announcement: inventing the parent would invent an invocation, and
    // removing the field would reshape the event. Its FINISHED then goes as an orphan; events tagged
    // with its id stay (they need no announcement). Lossy: the invocation's name and nesting are lost.
    const text = `${String(event.type)} for the ${family.noun} ${quotedId(id)} names the parent ${quotedId(parent)}, which was not announced in this run; it was dropped`;
    const rule = family.rules.orphan;
    return result(state, NONE, [repairWarning("REPAIRED_ORPHAN_DROPPED", rule, event, ctx, [id, parent], text, true)]);
  }
  const ended = !family.reopenable && state.endedSubagents.has(id);
  if (state.find(family, id, itemOwner) === undefined && !ended) {
    state.add(family, id, itemOwner);
    return pass(state, event);
  }
  const why = ended ? "has already ended in this run and cannot be used again" : "is already open";
  const what = `${String(event.type)} for the ${family.noun} ${quotedId(id)}, which ${why},`;
  return dropped(state, "REPAIRED_DUPLICATE_OPEN_DROPPED", family.rules.duplicateOpen, event, ctx, [id], what);
}

function continueItem(state: RepairState, family: Family, closes: boolean, event: Obj, ctx: StepContext): Step {
  const id = event[family.key];
  const owner = event.subagentRunId;
  if (typeof id !== "string" || (owner !== undefined && typeof owner !== "string")) return pass(state, event);
  const itemOwner = family.perOwner ? owner : undefined;
  if (state.find(family, id, itemOwner) !== undefined) {
    if (closes) {
      state.remove(family, id, itemOwner);
      if (!family.reopenable) state.endedSubagents.add(id);
    }
    return pass(state, event);
  }
  const what = `${String(event.type)} for the ${family.noun} ${quotedId(id)}, which is not open,`;
  return dropped(state, "REPAIRED_ORPHAN_DROPPED", family.rules.orphan, event, ctx, [id], what);
}

/** A chunk naming an item open in explicit form would open it a second time (#49): dropped. Anything else is expansion's business. */
function chunk(state: RepairState, family: Family, idField: string, event: Obj, ctx: StepContext): Step {
  const id = event[idField];
  if (typeof id !== "string" || state.find(family, id, undefined) === undefined) return pass(state, event);
  const what = `${String(event.type)} naming the ${family.noun} ${quotedId(id)}, which is open in explicit form (a chunk would open it again),`;
  return dropped(state, "REPAIRED_DUPLICATE_OPEN_DROPPED", family.rules.duplicateOpen, event, ctx, [id], what);
}

/** Legacy items, one of each kind at a time, as upcastThinking tracks them (D-THINK-ORPHAN, R-REASON-10/11). */
function legacy(state: RepairState, shape: LegacyShape, event: Obj, ctx: StepContext): Step {
  const open = state.legacy[shape.item] !== undefined;
  if (shape.action === "open") {
    if (!open) {
      state.setLegacy(shape.item, true);
      return pass(state, event);
    }
    const rule = shape.item === "span" ? "R-REASON-10" : "R-REASON-11";
    const what = `${shape.legacyType} while the legacy ${shape.item} is open`;
    return dropped(state, "REPAIRED_DUPLICATE_OPEN_DROPPED", rule, event, ctx, NONE, what);
  }
  if (open) {
    if (shape.action === "close") state.setLegacy(shape.item, false);
    return pass(state, event);
  }
  const what = `${shape.legacyType} without an open legacy ${shape.item}`;
  return dropped(state, "REPAIRED_ORPHAN_DROPPED", "D-THINK-ORPHAN", event, ctx, NONE, what);
}

// ---------------------------------------------------------------------------------------------

function pass(state: RepairState, event: unknown): Step {
  state.pass.out[0] = event;
  return state.pass;
}

/** `event` dropped: the warning says "`what` was dropped", and what content went with it. */
function dropped(
  state: RepairState,
  code: "REPAIRED_ORPHAN_DROPPED" | "REPAIRED_DUPLICATE_OPEN_DROPPED",
  rule: string,
  event: Obj,
  ctx: StepContext,
  ids: readonly string[],
  what: string,
): Step {
  const lost = lostText(event);
  return result(state, NONE, [repairWarning(code, rule, event, ctx, ids, `${what} was dropped${lost}`, lost !== "")]);
}

/** Whether `id` of `family` was announced in this run: open now, or ended (verification's nesting check, R-SUB-5). */
function announced(state: RepairState, family: Family, id: string): boolean {
  return state.find(family, id, undefined) !== undefined || state.endedSubagents.has(id);
}

/**
 * " with N bytes of content" for a message: the content a dropped event takes with it (a non-empty delta, a
 * title, metadata; lossy when there is any, R-VER-6). Sizes only, never the content (D-REDACT).
 */
function lostText(event: Obj): string {
  const parts: string[] = [];
  if (typeof event.delta === "string" && event.delta !== "") parts.push(`${byteLength(event.delta)} bytes of content`);
  if (event.title !== undefined) parts.push("its title");
  if (event.metadata !== undefined) parts.push("its metadata");
  return parts.length === 0 ? "" : ` with ${parts.join(" and ")}`;
}
