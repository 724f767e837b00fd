import { protocolError, type ReasoningProtocolError } from "../core/errors";
import { plural } from "../core/plural";
import type { AguiEvent, ReasoningWarning, StepContext } from "../core/types";
import { catalogued } from "../core/warning-codes";
import { FAMILIES, type Family } from "./families";
import { recordMessages } from "./known-roles";
import { quote, resetOpenSets, runItems, type OpenSets } from "./open-items";
import type { VerifyState } from "./verify-state";

/** Errors list at most this many open ids (a hostile stream may hold `maxOpenItems` of them). */
export const MAX_LISTED_IDS = 50;

/** Why an event is not allowed in each phase but `active` (R-RUN-1, R-RUN-7/8). */
const OUTSIDE_RUN: Record<Exclude<VerifyState["phase"], "active">, { rule: string; detail: string }> = {
  none: { rule: "R-RUN-1", detail: "First event must be 'RUN_STARTED' or 'RUN_ERROR'." },
  finished: {
    rule: "R-RUN-8",
    detail: "The run has already finished with 'RUN_FINISHED'; only RUN_STARTED or a late RUN_ERROR may follow.",
  },
  errored: { rule: "R-RUN-8", detail: "The run has already errored with 'RUN_ERROR'; only RUN_STARTED may follow." },
};

/**
 * Every event but the run's own boundaries needs an open run; standalone events too (R-STREAM-6,
 * R-REASON-21). `family` names the item the event concerns, for the error's ids.
 */
export function requireOpenRun(state: VerifyState, event: AguiEvent, ctx: StepContext, family?: Family): void {
  if (state.phase === "active") return;
  const id = family === undefined ? undefined : event[family.key];
  const why = OUTSIDE_RUN[state.phase];
  throw protocolError("EVENT_OUTSIDE_RUN", why.rule, event, ctx, typeof id === "string" ? [id] : [], why.detail);
}

/** RUN_STARTED opens a run (R-RUN-9) and seeds roles from its input echo. */
export function startRun(state: VerifyState, event: AguiEvent, ctx: StepContext): void {
  const runId = typeof event.runId === "string" ? event.runId : undefined;
  if (state.phase === "active") {
    const ids = [state.runId, runId].filter((id): id is string => id !== undefined);
    const open = state.runId === undefined ? "" : ` (run ${quote(state.runId)})`;
    throw protocolError(
      "NESTED_RUN",
      "R-RUN-9",
      event,
      ctx,
      ids,
      `Cannot send 'RUN_STARTED' while a run is still active${open}; it must end with RUN_FINISHED or RUN_ERROR first.`,
    );
  }
  // The previous run's RUN_FINISHED or RUN_ERROR already emptied the sets (R-RUN-11).
  state.phase = "active";
  state.runId = runId;
  state.threadId = typeof event.threadId === "string" ? event.threadId : undefined;
  const input = event.input;
  if (typeof input === "object" && input !== null)
    recordMessages(state.roles, (input as { messages?: unknown }).messages, false);
}

/**
 * RUN_FINISHED requires everything the run opened to be closed, whatever its outcome (R-REASON-13,
 * R-RUN-4, R-STREAM-3, R-SUB-5). It is not forwarded when it fails.
 */
export function finishRun(state: VerifyState, event: AguiEvent, ctx: StepContext): ReasoningWarning | undefined {
  requireOpenRun(state, event, ctx);
  if (state.sets.total > 0) {
    const families = FAMILIES.filter((f) => state.sets.families[f.index]!.open > 0);
    const outcome = event.outcome;
    const cancelled =
      typeof outcome === "object" && outcome !== null && (outcome as { type?: unknown }).type === "cancelled";
    const open = listOpen(state.sets);
    throw protocolError(
      "OPEN_AT_RUN_FINISHED",
      cancelled ? "R-RUN-4" : families[0]!.rules.openAtFinish,
      event,
      ctx,
      open.ids,
      `Cannot send 'RUN_FINISHED' while ${families.map((f) => `${f.noun}s`).join(", ")} are still active (${open.text}).`,
    );
  }
  resetOpenSets(state.sets);
  state.phase = "finished";
  return runIdMismatch(state, event, ctx);
}

/**
 * RUN_ERROR is the producer's own report, not a rejection: it is forwarded and ends whatever was
 * open (R-RUN-11/13, D-RUN-ERROR). Allowed first (R-RUN-1) and late after RUN_FINISHED (R-RUN-7);
 * after another RUN_ERROR only RUN_STARTED may come.
 */
export function errorRun(state: VerifyState, event: AguiEvent, ctx: StepContext): ReasoningWarning | undefined {
  if (state.phase === "errored") requireOpenRun(state, event, ctx);
  const mismatch = state.phase === "active" ? runIdMismatch(state, event, ctx) : undefined;
  resetOpenSets(state.sets);
  state.phase = "errored";
  return mismatch;
}

/**
 * D-RUN-ID: a RUN_FINISHED or RUN_ERROR naming another `runId` or `threadId` than the open run's
 * RUN_STARTED ends the run as usual, with a non-lossy warning naming both (LangGraph servers mint
 * their own run id). R-INPUT-1 binds the producer; the spec does not make it fatal for a consumer.
 * A field the event does not carry is not compared (RUN_ERROR describes neither).
 */
function runIdMismatch(state: VerifyState, event: AguiEvent, ctx: StepContext): ReasoningWarning | undefined {
  const { runId, threadId } = event;
  const otherRun = namesOther(runId, state.runId);
  const otherThread = namesOther(threadId, state.threadId);
  // The usual end names the run it ends: nothing to build (this runs once per run).
  if (!otherRun && !otherThread) return undefined;
  const ids: string[] = [];
  const parts: string[] = [];
  const mention = (field: string, ended: string, opened: string): void => {
    ids.push(opened, ended);
    parts.push(`${field} ${quote(ended)} (RUN_STARTED had ${quote(opened)})`);
  };
  if (otherRun) mention("runId", runId as string, state.runId!);
  if (otherThread) mention("threadId", threadId as string, state.threadId!);
  return catalogued("RUN_ID_MISMATCH", "D-RUN-ID", {
    message: `${event.type} names ${parts.join(" and ")}; the run ends as usual`,
    eventType: event.type,
    eventIndex: ctx.index,
    ids,
  });
}

/** Whether an ended run's field names a string other than its RUN_STARTED's (compared only when both exist). */
function namesOther(ended: unknown, opened: string | undefined): boolean {
  return typeof ended === "string" && opened !== undefined && ended !== opened;
}

/**
 * The source completed while a run was open: a truncated run has no outcome, so nothing is
 * synthesized and the stream fails (D-TRUNC, R-TRANS-3, R-RUN-5).
 */
export function truncatedRun(state: VerifyState, ctx: StepContext): ReasoningProtocolError {
  const run = state.runId === undefined ? "a run" : `run ${quote(state.runId)}`;
  const open = listOpen(state.sets);
  const detail =
    `The source completed while ${run} was open, without RUN_FINISHED or RUN_ERROR ` +
    `(${open.text}); a truncated run has no outcome.`;
  return protocolError("RUN_TRUNCATED", "D-TRUNC", undefined, ctx, open.ids, detail, "<end of stream>");
}

/**
 * The open items, each named with its family: a span and a message may share an id (R-REASON-12,
 * CopilotKit and Mastra do), which is then listed once in `ids` and once per family in the text.
 */
function listOpen(sets: OpenSets): { ids: string[]; text: string } {
  const items: { family: Family; id: string }[] = [];
  for (const entry of runItems(sets)) if (entry.item.open && items.push(entry) >= MAX_LISTED_IDS) break;
  const total = sets.total;
  const more = items.length < total ? `, the first ${items.length} listed` : "";
  const named = items.map(({ family, id }) => `${family.noun} ${quote(id)}`).join(", ");
  return {
    ids: [...new Set(items.map((i) => i.id))],
    text: `${plural(total, "open item")}${more}${named ? `: ${named}` : ""}`,
  };
}
