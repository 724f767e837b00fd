import type { Message } from "@ag-ui/core";
import {
  result,
  type AguiEvent,
  type Stage,
  type StepContext,
  type StepResult,
  type WarningOptions,
} from "../core/types";
import { ROUTES, type Family } from "./families";
import { checkRoleConflict, declareMessage, recordMessages, recordSnapshot, type KnownRoles } from "./known-roles";
import {
  checkOpen,
  checkParent,
  closeItem,
  commitOpen,
  continueItem,
  continuesOpenItem,
  isOpenMessage,
  keyOf,
  quote,
  tagOf,
} from "./open-items";
import { errorRun, finishRun, requireOpenRun, startRun, truncatedRun } from "./run-lifecycle";
import { protocolError } from "../core/errors";
import { VerifyState } from "./verify-state";
import { optionsOf } from "../core/arguments";

export { VerifyState } from "./verify-state";

export interface VerifyOptions extends WarningOptions {
  /** Open items (all families together) allowed at once; more fails with LIMIT_EXCEEDED. Default 10_000. */
  maxOpenItems?: number;
  /** Messages the consumer already holds (their id → role seeds D-ROLE-CONFLICT). */
  initialMessages?: readonly Message[];
}

const DEFAULT_MAX_OPEN_ITEMS = 10_000;

/**
 * Stage 4: verifies the streaming discipline of every family (spans, reasoning messages, text
 * messages, tool calls, steps, subagent invocations) and the run lifecycle, and forwards each event
 * unchanged, or fails the stream (R-REASON-8). Input must already be expanded (R-STREAM-7).
 */
export function createVerifyStage(options?: VerifyOptions): Stage<VerifyState, AguiEvent, AguiEvent> {
  options = optionsOf(options, "verifyDiscipline");
  const maxOpenItems = options.maxOpenItems ?? DEFAULT_MAX_OPEN_ITEMS;
  if (!(maxOpenItems >= 0) || !(Number.isInteger(maxOpenItems) || maxOpenItems === Infinity)) {
    throw new RangeError(
      `verifyDiscipline: maxOpenItems must be a non-negative integer or Infinity (got ${String(maxOpenItems)}).`,
    );
  }
  // The seed's roles, read once, now (a getter or proxy may throw, or answer a later read otherwise):
  // named by the option, never by what was thrown (D-REDACT).
  const seeded: KnownRoles = new Map();
  try {
    recordMessages(seeded, options.initialMessages, true);
  } catch {
    throw new TypeError("agui-reasoning: verifyDiscipline: a read of initialMessages threw");
  }
  return {
    name: "verifyDiscipline",
    init: () => new VerifyState(new Map(seeded)),
    step: (state, event, ctx) => verify(state, event, ctx, maxOpenItems),
    finish(state, ctx) {
      if (state.phase === "active") throw truncatedRun(state, ctx);
      return result(state);
    },
  };
}

function verify(
  state: VerifyState,
  event: AguiEvent,
  ctx: StepContext,
  maxOpenItems: number,
): StepResult<VerifyState, AguiEvent> {
  if (typeof event !== "object" || event === null || typeof event.type !== "string") throw notAnEvent(event, ctx);
  const route = ROUTES.get(event.type);
  if (route === undefined) {
    // Standalone and unknown events touch no open set; they only need an open run (R-STREAM-6).
    requireOpenRun(state, event, ctx);
  } else {
    switch (route.kind) {
      case "continue":
        requireOpenRun(state, event, ctx, route.family);
        continueItem(state.sets, route.family, event, keyOf(event, route.family, ctx), ctx);
        break;
      case "open":
        requireOpenRun(state, event, ctx, route.family);
        open(state, route.family, event, ctx, maxOpenItems);
        break;
      case "close":
        requireOpenRun(state, event, ctx, route.family);
        closeItem(state.sets, route.family, event, keyOf(event, route.family, ctx), ctx);
        break;
      case "run-started":
        startRun(state, event, ctx);
        break;
      case "run-finished":
      case "run-error": {
        const mismatch = (route.kind === "run-finished" ? finishRun : errorRun)(state, event, ctx);
        if (mismatch !== undefined) return result(state, [event], [mismatch]);
        break;
      }
      case "chunk":
        throw protocolError(
          "MALFORMED_EVENT",
          "R-STREAM-7",
          event,
          ctx,
          [],
          `${event.type} reached verification: chunks must be expanded (expandChunks) before verifyDiscipline.`,
        );
      case "snapshot":
        requireOpenRun(state, event, ctx);
        recordSnapshot(state.roles, event.messages, (id) => isOpenMessage(state.sets, id));
        break;
      case "declares-message":
        requireOpenRun(state, event, ctx);
        if (typeof event.messageId === "string") declareMessage(state.roles, event.messageId, route.role);
        break;
    }
  }
  return state.pass(state, event);
}

/**
 * Whether an event of `type` naming `id`, tagged `tag` (`undefined`: untagged), passes verification
 * unchanged and leaves the state as it is: a CONTENT/ARGS of an open item in an active run, by its
 * owner or untagged. The facade's delta lane (src/pipeline/delta-lane.ts) arms only when this holds.
 */
export function passesAsContinuation(state: VerifyState, type: string, id: string, tag: string | undefined): boolean {
  if (state.phase !== "active") return false;
  const route = ROUTES.get(type);
  return route !== undefined && route.kind === "continue" && continuesOpenItem(state.sets, route.family, id, tag);
}

/** A START: every check first, then the open set changes (a failed step leaves it as it was). */
function open(state: VerifyState, family: Family, event: AguiEvent, ctx: StepContext, maxOpenItems: number): void {
  const id = keyOf(event, family, ctx);
  const owner = family.attributed ? tagOf(event, ctx) : undefined;
  const reopened = checkOpen(state.sets, family, event, id, owner, ctx);
  const role = family.declaresRole?.(event);
  const known = role === undefined ? undefined : checkRoleConflict(state.roles, id, role, event, ctx);
  checkParent(state.sets, family, event, ctx);
  if (state.sets.total >= maxOpenItems) {
    throw protocolError(
      "LIMIT_EXCEEDED",
      "D-LIMIT",
      event,
      ctx,
      [id],
      `Opening the ${family.noun} ${quote(id)} would exceed maxOpenItems (${maxOpenItems} items are open).`,
    );
  }
  commitOpen(state.sets, family, reopened, id, owner);
  // `declareMessage`, without looking the id up again (it was unknown a moment ago).
  if (role !== undefined && known === undefined) state.roles.set(id, role);
}

function notAnEvent(event: unknown, ctx: StepContext): Error {
  const what = typeof event === "object" && event !== null ? "an object without a string type" : "not an object";
  return protocolError("MALFORMED_EVENT", "R-PROC-4", event, ctx, [], `The event is ${what}.`);
}
