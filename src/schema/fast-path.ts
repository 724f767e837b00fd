import { EventType } from "@ag-ui/core";
import { JsonPatchSchema, TextMessageRoleSchema } from "@ag-ui/core/schemas";
import { isDenseList, isInstant, isPlainObject } from "../core/json";

/**
 * A hand-written check for the events that make up nearly all of a stream: the content deltas
 * (`REASONING_MESSAGE_CONTENT`, `TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS`) and the three `*_CHUNK`s,
 * plus the simple openers and closers every run has (the `*_START`/`*_END` of messages, spans and
 * tool calls, `STEP_STARTED`/`STEP_FINISHED`), the encrypted values, a tool call's result, and the
 * activity and state snapshots and deltas.
 *
 * Why it exists: running the strip pre-check and zod's `safeParse` on every delta was about an
 * eighth of the whole pipeline's time. zod stays the authority: `isCleanHotEvent` answers `true`
 * exactly when enforcement would forward the event untouched — nothing to strip and the schema
 * accepts it — and `false` otherwise, in which case the caller runs the full path (strip, zod,
 * warnings, errors), which decides. test/schema/fast-path.property.test.ts proves with fast-check
 * that the answer equals `stripUnknown(e) === undefined && schema.safeParse(e).success` for
 * generated events of these types (right and wrong value types, `null`s, missing and extra keys).
 * Exceptions, on the safe side: a TOOL_CALL_RESULT whose `content` is an array of parts, and a
 * RUN_STARTED / RUN_FINISHED with any of the fields checked `absent`, are never called clean here
 * (the full path decides them).
 */

// The schema's own enum, so the hand-written check cannot drift from it.
const TEXT_ROLES: ReadonlySet<string> = new Set(TextMessageRoleSchema.options);

// How a hot event type's own fields are checked: one predicate per kind of field.
type Check = (value: unknown) => boolean;
/** A string, present. */
const requiredString: Check = (v) => typeof v === "string";
/** Absent (`undefined`) or a string. */
const optionalString: Check = (v) => v === undefined || typeof v === "string";
/** Absent, or one of the text roles (another string is an unrecognised member, which is stripped). */
const optionalTextRole: Check = (v) => v === undefined || (typeof v === "string" && TEXT_ROLES.has(v));
/** Exactly `"reasoning"` (REASONING_MESSAGE_START's literal role). */
const reasoningRole: Check = (v) => v === "reasoning";
/** `"message"` or `"tool-call"` (REASONING_ENCRYPTED_VALUE's subtype; another string is removed with UNKNOWN_SUBTYPE). */
const valueSubtype: Check = (v) => v === "message" || v === "tool-call";
/** Absent, or exactly `"tool"` (TOOL_CALL_RESULT's literal role). */
const optionalToolRole: Check = (v) => v === undefined || v === "tool";
/** Absent (`undefined`): a field whose check is left to the full path (a run's input, result, outcome…). */
const absent: Check = (v) => v === undefined;
/** An object, not `null`, not an array (an activity's `content`: a `z.custom`, nothing inside it is walked). */
const object: Check = isPlainObject;
/** Absent or a boolean. */
const optionalBoolean: Check = (v) => v === undefined || typeof v === "boolean";
/** Anything but `undefined` (a state snapshot: `z.any()`, nothing inside it is walked). */
const present: Check = (v) => v !== undefined;
/**
 * A JSON Patch (RFC 6902): the patch alone through zod (its operations are open objects: nothing in them
 * is stripped). A missing operation takes the full path first, whose walk refuses a hole: zod would judge
 * each of the 2³²−1 slots a sparse array claims (or a proxy claims, past `MAX_LIST_LENGTH`, with none).
 */
const jsonPatch: Check = (v) => Array.isArray(v) && isDenseList(v) && JsonPatchSchema.safeParse(v).success;

/** Fields every event has (BaseEventSchema, plus `subagentRunId`), checked by hand in `baseFieldsClean`. */
const BASE_FIELDS: ReadonlySet<string> = new Set(["type", "timestamp", "rawEvent", "metadata", "subagentRunId"]);

/** A hot type's own fields (besides the base ones): a set for the key check, parallel arrays for the value checks (no iterator per event). */
interface Shape {
  /** Every key the type describes, base fields included (one lookup per key of the event). */
  readonly described: ReadonlySet<string>;
  readonly names: readonly string[];
  readonly checks: readonly Check[];
}

function shape(...fields: ReadonlyArray<readonly [string, Check]>): Shape {
  return shapeOver(BASE_FIELDS, fields);
}

/** The run events' schemas describe no `subagentRunId` (a run is the parent's): it is stripped there. */
function runShape(...fields: ReadonlyArray<readonly [string, Check]>): Shape {
  return shapeOver(new Set([...BASE_FIELDS].filter((field) => field !== "subagentRunId")), fields);
}

function shapeOver(base: ReadonlySet<string>, fields: ReadonlyArray<readonly [string, Check]>): Shape {
  const names = fields.map(([name]) => name);
  return { described: new Set([...base, ...names]), names, checks: fields.map(([, check]) => check) };
}

const HOT_SHAPES: ReadonlyMap<string, Shape> = new Map<string, Shape>([
  [EventType.REASONING_MESSAGE_CONTENT, shape(["messageId", requiredString], ["delta", requiredString])],
  [EventType.TEXT_MESSAGE_CONTENT, shape(["messageId", requiredString], ["delta", requiredString])],
  [EventType.TOOL_CALL_ARGS, shape(["toolCallId", requiredString], ["delta", requiredString])],
  [EventType.REASONING_MESSAGE_CHUNK, shape(["messageId", optionalString], ["delta", optionalString])],
  [
    EventType.TEXT_MESSAGE_CHUNK,
    shape(
      ["messageId", optionalString],
      ["role", optionalTextRole],
      ["delta", optionalString],
      ["name", optionalString],
    ),
  ],
  [
    EventType.TOOL_CALL_CHUNK,
    // `parentMessageId: null` is registry-tolerated (R-DEP-6): not clean, the full path converts it with a warning.
    shape(
      ["toolCallId", optionalString],
      ["toolCallName", optionalString],
      ["parentMessageId", optionalString],
      ["delta", optionalString],
    ),
  ],
  // The openers and closers of a conversation's items and steps: few per run, but each took the
  // strip pre-check and zod (≈ a third of a non-delta event's cost in the mixed conversation, issue 13).
  [
    EventType.TEXT_MESSAGE_START,
    shape(["messageId", requiredString], ["role", optionalTextRole], ["name", optionalString]),
  ],
  [EventType.TEXT_MESSAGE_END, shape(["messageId", requiredString])],
  [EventType.REASONING_START, shape(["messageId", requiredString])],
  [EventType.REASONING_END, shape(["messageId", requiredString])],
  [EventType.REASONING_MESSAGE_START, shape(["messageId", requiredString], ["role", reasoningRole])],
  [EventType.REASONING_MESSAGE_END, shape(["messageId", requiredString])],
  [
    EventType.TOOL_CALL_START,
    // `parentMessageId: null` is registry-tolerated (R-DEP-6): not clean, as for TOOL_CALL_CHUNK.
    shape(["toolCallId", requiredString], ["toolCallName", requiredString], ["parentMessageId", optionalString]),
  ],
  [EventType.TOOL_CALL_END, shape(["toolCallId", requiredString])],
  [EventType.STEP_STARTED, shape(["stepName", requiredString])],
  [EventType.STEP_FINISHED, shape(["stepName", requiredString])],
  // A run's start and end without the fields whose checks are the full path's (an input, a
  // protocol version to compare, a result, an outcome, usage): one-sided, as a tool result's array content.
  [
    EventType.RUN_STARTED,
    runShape(
      ["threadId", requiredString],
      ["runId", requiredString],
      ["parentRunId", optionalString],
      ["protocolVersion", absent],
      ["input", absent],
    ),
  ],
  [
    EventType.RUN_FINISHED,
    runShape(
      ["threadId", requiredString],
      ["runId", requiredString],
      ["result", absent],
      ["outcome", absent],
      ["usage", absent],
    ),
  ],
  [
    EventType.REASONING_ENCRYPTED_VALUE,
    shape(["subtype", valueSubtype], ["entityId", requiredString], ["encryptedValue", requiredString]),
  ],
  [
    EventType.TOOL_CALL_RESULT,
    // `content` may also be an array of content parts: the one case where this check is not exact,
    // on the safe side (such an event takes the full path, which decides; see the property test).
    shape(
      ["messageId", requiredString],
      ["toolCallId", requiredString],
      ["content", requiredString],
      ["role", optionalToolRole],
    ),
  ],
  // A conversation's activity and state: a few per run, each took the strip walk and zod (the
  // largest share of enforcement's time in the parallel conversation, issue 23).
  [
    EventType.ACTIVITY_SNAPSHOT,
    shape(
      ["messageId", requiredString],
      ["activityType", requiredString],
      ["content", object],
      ["replace", optionalBoolean],
    ),
  ],
  [
    EventType.ACTIVITY_DELTA,
    shape(["messageId", requiredString], ["activityType", requiredString], ["patch", jsonPatch]),
  ],
  [EventType.STATE_SNAPSHOT, shape(["snapshot", present])],
  [EventType.STATE_DELTA, shape(["delta", jsonPatch])],
]);

/**
 * Whether `event` (an object whose `type` is the string `type`) is one of the hot types and would
 * pass enforcement unchanged and without a warning. `false` means "take the full path", not "reject".
 */
export function isCleanHotEvent(event: Record<string, unknown>, type: string): boolean {
  const shape = HOT_SHAPES.get(type);
  if (shape === undefined) return false;
  // The key set: every enumerable key (own or inherited, as the strip walk sees them) is described.
  for (const key in event) {
    if (!shape.described.has(key)) return false;
  }
  if (!baseFieldsClean(event)) return false;
  const { names, checks } = shape;
  for (let i = 0; i < names.length; i++) if (!checks[i]!(event[names[i]!])) return false;
  return true;
}

/** `timestamp` a safe integer, `rawEvent` not `null` (a tolerated null is converted, so not clean), `metadata` an object, `subagentRunId` a string; each optional. */
function baseFieldsClean(event: Record<string, unknown>): boolean {
  const timestamp = event.timestamp;
  if (timestamp !== undefined && !isInstant(timestamp)) return false;
  if (event.rawEvent === null) return false;
  if (event.metadata !== undefined && !isPlainObject(event.metadata)) return false;
  const subagentRunId = event.subagentRunId;
  return subagentRunId === undefined || typeof subagentRunId === "string";
}
