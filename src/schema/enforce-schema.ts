import { isPlainObject, NotJsonData } from "../core/json";
import { protocolError, ReasoningProtocolError } from "../core/errors";
import {
  NONE,
  passThrough,
  result,
  type AguiEvent,
  type ReasoningWarning,
  type Stage,
  type StepContext,
  type StepResult,
  type WarningOptions,
} from "../core/types";
import { describeIssues, type IssueLike } from "./describe-issues";
import { protocolVersionWarning, stripWarnings, unknownTypeWarning } from "./enforce-warnings";
import { idsOf } from "./event-ids";
import { eventEntry, type EventEntry } from "./event-schemas";
import { isCleanHotEvent } from "./fast-path";
import { compareProtocolVersion } from "./protocol-version";
import { REMOVED, stripUnknown } from "./strip-unknown";
import { toPointer } from "./json-pointer";
import type { ShortenedLists } from "../core/source-pointer";

/** Enforcement keeps nothing between events: every verdict depends on the event alone. */
export type EnforceState = null;

/**
 * Stage 2, enforcement (R-PROC-6/12): validates each event against the AG-UI 1.0 zod schema of
 * its type (`@ag-ui/core/schemas`) and decides, per the verdict matrix (digest §6.1):
 *
 * - not an object, or `type` not a string → FAIL `MALFORMED_EVENT` (R-PROC-4);
 * - a type 1.0 does not describe (incl. any `THINKING_*` left untranslated) → DROP + `UNKNOWN_EVENT_TYPE`;
 * - undescribed properties of closed objects → STRIP + `STRIPPED_PROPERTY` (R-PROC-2/7/8);
 * - unrecognised union members → removed at the depth R-PROC-11 says (`UNKNOWN_UNION_MEMBER`,
 *   or `UNKNOWN_SUBTYPE` for a `REASONING_ENCRYPTED_VALUE` removed whole, R-REASON-24);
 * - registry-tolerated `null`s → absent + `NULL_TOLERATED` (R-DEP-6);
 * - anything else the schema rejects → FAIL `MALFORMED_EVENT` naming the JSON paths (R-PROC-4, R-REASON-23);
 * - `RUN_STARTED.protocolVersion` newer or uninterpretable → PASS + `PROTOCOL_VERSION` (R-VER-16/17).
 *
 * A clean event is forwarded as the very object that arrived; a new object is made only when
 * something was stripped, and it is exactly what the schema accepted minus the stripped parts.
 */
export function createEnforceStage(_options?: WarningOptions): Stage<EnforceState, unknown, AguiEvent> {
  // Warnings are routed by the operator (stageOperator/the facade); the stage itself needs no options.
  // One reusable result per stage instance for the fast path.
  const pass = passThrough<EnforceState, AguiEvent>();
  return { name: "enforceSchema", init: () => null, step: (state, input, ctx) => enforceStep(state, input, ctx, pass) };
}

function enforceStep(
  state: EnforceState,
  input: unknown,
  ctx: StepContext,
  pass: (state: EnforceState, event: AguiEvent) => StepResult<EnforceState, AguiEvent>,
): StepResult<EnforceState, AguiEvent> {
  try {
    const type = requireType(input, ctx);
    // Content deltas and chunks, nearly every event: a hand-written check with exactly zod's verdict
    // on a clean event (fast-path.ts); anything else, or any doubt, takes the full path below.
    if (isCleanHotEvent(input as Record<string, unknown>, type)) return pass(state, input as AguiEvent);
    const entry = eventEntry(type);
    if (entry === undefined) return result(state, NONE, [unknownTypeWarning(input, ctx)]);
    return validate(state, input, entry, ctx);
  } catch (error) {
    if (error instanceof ReasoningProtocolError) throw error;
    // Only hostile input (a throwing getter, a proxy, a sparse array) gets here: report it, never a bare TypeError.
    throw unreadable(input, ctx, error instanceof NotJsonData ? `: ${error.message}` : "");
  }
}

function validate(
  state: EnforceState,
  input: unknown,
  entry: EventEntry,
  ctx: StepContext,
): StepResult<EnforceState, AguiEvent> {
  let event = input;
  let warnings: ReasoningWarning[] | undefined;
  const stripped = stripUnknown(input, entry.plan());
  if (stripped !== undefined) {
    warnings = stripWarnings(stripped.notes, input, ctx);
    if (stripped.value === REMOVED) {
      // The event goes because of an unrecognised member, but its described fields are still judged:
      // a malformed known field is fatal even beside an unknown subtype (R-PROC-4, R-REASON-23, #73).
      const members = stripped.notes.filter((n) => n.kind === "unknown-member").map((n) => n.path);
      // Nor is a tolerated `null` beside it (R-DEP-6: absent, as in an event kept); the walk stopped at the member.
      const plan = entry.plan();
      const nulls = Object.keys(input as object)
        .filter((key) => (input as Record<string, unknown>)[key] === null && plan.fields.get(key)?.nullTolerated)
        .map((key) => toPointer([key]));
      assertSchema(input, input, entry, ctx, [...members, ...nulls]);
      return result(state, NONE, warnings);
    }
    event = stripped.value;
  }
  assertSchema(input, event, entry, ctx, NONE, stripped?.shortened);
  const version = entry.type === "RUN_STARTED" ? (event as { protocolVersion?: unknown }).protocolVersion : undefined;
  if (typeof version === "string") {
    const warning = protocolVersionWarning(version, compareProtocolVersion(version), event, ctx);
    if (warning) (warnings ??= []).push(warning);
  }
  const out = result(state, [event as AguiEvent], warnings ?? NONE);
  // A list that lost an element: the later links name its elements where the source had them (D-EVENT-INDEX).
  return stripped?.shortened === undefined ? out : { ...out, shortened: stripped.shortened };
}

/**
 * zod is the authority: anything its schema rejects fails the run, naming the JSON paths (R-PROC-4, R-REASON-23),
 * except the issues at (or below) `removed`, the unrecognised members that remove the event anyway.
 * Paths into `event`'s `shortened` lists are named where the source had the element (D-EVENT-INDEX).
 */
function assertSchema(
  input: unknown,
  event: unknown,
  entry: EventEntry,
  ctx: StepContext,
  removed: readonly string[] = NONE,
  shortened?: ShortenedLists,
): void {
  const verdict = entry.schema.safeParse(event) as { success: boolean; error?: { issues: readonly IssueLike[] } };
  if (verdict.success) return;
  const issues = (verdict.error?.issues ?? []).filter((issue) => {
    if (removed.length === 0) return true;
    const at = toPointer(issue.path);
    return !removed.some((m) => at === m || at.startsWith(`${m}/`));
  });
  if (issues.length === 0) return;
  const described = describeIssues(issues, event, shortened);
  if (entry.type === "REASONING_MESSAGE_START" && issues.some((issue) => toPointer(issue.path) === "/role"))
    throw malformed(input, ctx, `${described}${WRONG_REASONING_ROLE}`, "R-SCHEMA-2");
  const rule = entry.type.startsWith("REASONING_") ? "R-REASON-23" : "R-PROC-4";
  throw malformed(input, ctx, described, rule);
}

/**
 * Why a reasoning message's role fails, and what to do: the pre-1.0 AG-UI SDKs typed it "assistant",
 * and producers built on them still send that or nothing (fatal all the same: the conformance fixture
 * `reasoning-message-wrong-role-fatal`, digest §22 Q12).
 */
const WRONG_REASONING_ROLE =
  '; a reasoning message\'s role is required and fixed, "reasoning" (producers on a pre-1.0 AG-UI SDK send "assistant" or none: update the producer\'s SDK)';

/** The event's `type`, or FAIL: an event that is not an object, or has no string `type`, is malformed (R-PROC-4). */
function requireType(input: unknown, ctx: StepContext): string {
  if (isPlainObject(input)) {
    const type = (input as { type?: unknown }).type;
    if (typeof type === "string") return type;
    throw malformed(input, ctx, "/type (required field is missing or not a string)", "R-PROC-4");
  }
  throw malformed(input, ctx, "an event must be a JSON object", "R-PROC-4");
}

function unreadable(input: unknown, ctx: StepContext, why: string): ReasoningProtocolError {
  try {
    return malformed(input, ctx, `the event could not be read as JSON data${why}`, "R-PROC-4");
  } catch {
    return new ReasoningProtocolError({
      code: "MALFORMED_EVENT",
      rule: "R-PROC-4",
      eventIndex: ctx.index,
      eventType: "<unreadable>",
      detail: "the event could not be read as JSON data",
      event: input,
    });
  }
}

function malformed(input: unknown, ctx: StepContext, detail: string, rule: string): ReasoningProtocolError {
  return protocolError("MALFORMED_EVENT", rule, input, ctx, idsOf(input), detail);
}
