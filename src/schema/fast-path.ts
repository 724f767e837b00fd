import { EventType } from "@ag-ui/core";
import { JsonPatchSchema, TextMessageRoleSchema } from "@ag-ui/core/schemas";
import { isInstant, isPlainObject } from "../core/json";

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
 * RUN_STARTED / RUN_FINISHED with any of the fields marked `ABSENT`, are never called clean here
 * (the full path decides them).
 */

// How a hot event type's own fields are checked.
/** A string, present. */
const REQUIRED_STRING = 0;
/** Absent (`undefined`) or a string. */
const OPTIONAL_STRING = 1;
/** Absent, or one of the text roles (another string is an unrecognised member, which is stripped). */
const OPTIONAL_TEXT_ROLE = 2;
/** Exactly `"reasoning"` (REASONING_MESSAGE_START's literal role). */
const REASONING_ROLE = 3;
/** `"message"` or `"tool-call"` (REASONING_ENCRYPTED_VALUE's subtype; another string is removed with UNKNOWN_SUBTYPE). */
const VALUE_SUBTYPE = 4;
/** Absent, or exactly `"tool"` (TOOL_CALL_RESULT's literal role). */
const OPTIONAL_TOOL_ROLE = 5;
/** Absent (`undefined`): a field whose check is left to the full path (a run's input, result, outcome…). */
const ABSENT = 6;
/** An object, not `null`, not an array (an activity's `content`: a `z.custom`, nothing inside it is walked). */
const OBJECT = 7;
/** Absent or a boolean. */
const OPTIONAL_BOOLEAN = 8;
/** Anything but `undefined` (a state snapshot: `z.any()`, nothing inside it is walked). */
const PRESENT = 9;
/** A JSON Patch (RFC 6902): `JsonPatchSchema` accepts it. */
const JSON_PATCH = 10;
type Kind =
  | typeof REQUIRED_STRING
  | typeof OPTIONAL_STRING
  | typeof OPTIONAL_TEXT_ROLE
  | typeof REASONING_ROLE
  | typeof VALUE_SUBTYPE
  | typeof OPTIONAL_TOOL_ROLE
  | typeof ABSENT
  | typeof OBJECT
  | typeof OPTIONAL_BOOLEAN
  | typeof PRESENT
  | typeof JSON_PATCH;

/** Fields every event has (BaseEventSchema, plus `subagentRunId`), checked by hand in `baseFieldsClean`. */
const BASE_FIELDS: ReadonlySet<string> = new Set(["type", "timestamp", "rawEvent", "metadata", "subagentRunId"]);

/** A hot type's own fields (besides the base ones): a set for the key check, parallel arrays for the value checks (no iterator per event). */
interface Shape {
  /** Every key the type describes, base fields included (one lookup per key of the event). */
  readonly described: ReadonlySet<string>;
  readonly names: readonly string[];
  readonly kinds: readonly Kind[];
}

function shape(...fields: ReadonlyArray<readonly [string, Kind]>): Shape {
  return shapeOver(BASE_FIELDS, fields);
}

/** The run events' schemas describe no `subagentRunId` (a run is the parent's): it is stripped there. */
function runShape(...fields: ReadonlyArray<readonly [string, Kind]>): Shape {
  return shapeOver(new Set([...BASE_FIELDS].filter((field) => field !== "subagentRunId")), fields);
}

function shapeOver(base: ReadonlySet<string>, fields: ReadonlyArray<readonly [string, Kind]>): Shape {
  const names = fields.map(([name]) => name);
  return { described: new Set([...base, ...names]), names, kinds: fields.map(([, kind]) => kind) };
}

// The schema's own enum, so the hand-written check cannot drift from it.
const TEXT_ROLES: ReadonlySet<string> = new Set(TextMessageRoleSchema.options);

const HOT_SHAPES: ReadonlyMap<string, Shape> = new Map<string, Shape>([
  [EventType.REASONING_MESSAGE_CONTENT, shape(["messageId", REQUIRED_STRING], ["delta", REQUIRED_STRING])],
  [EventType.TEXT_MESSAGE_CONTENT, shape(["messageId", REQUIRED_STRING], ["delta", REQUIRED_STRING])],
  [EventType.TOOL_CALL_ARGS, shape(["toolCallId", REQUIRED_STRING], ["delta", REQUIRED_STRING])],
  [EventType.REASONING_MESSAGE_CHUNK, shape(["messageId", OPTIONAL_STRING], ["delta", OPTIONAL_STRING])],
  [
    EventType.TEXT_MESSAGE_CHUNK,
    shape(
      ["messageId", OPTIONAL_STRING],
      ["role", OPTIONAL_TEXT_ROLE],
      ["delta", OPTIONAL_STRING],
      ["name", OPTIONAL_STRING],
    ),
  ],
  [
    EventType.TOOL_CALL_CHUNK,
    // `parentMessageId: null` is registry-tolerated (R-DEP-6): not clean, the full path converts it with a warning.
    shape(
      ["toolCallId", OPTIONAL_STRING],
      ["toolCallName", OPTIONAL_STRING],
      ["parentMessageId", OPTIONAL_STRING],
      ["delta", OPTIONAL_STRING],
    ),
  ],
  // The openers and closers of a conversation's items and steps: few per run, but each took the
  // strip pre-check and zod (≈ a third of a non-delta event's cost in the mixed conversation, issue 13).
  [
    EventType.TEXT_MESSAGE_START,
    shape(["messageId", REQUIRED_STRING], ["role", OPTIONAL_TEXT_ROLE], ["name", OPTIONAL_STRING]),
  ],
  [EventType.TEXT_MESSAGE_END, shape(["messageId", REQUIRED_STRING])],
  [EventType.REASONING_START, shape(["messageId", REQUIRED_STRING])],
  [EventType.REASONING_END, shape(["messageId", REQUIRED_STRING])],
  [EventType.REASONING_MESSAGE_START, shape(["messageId", REQUIRED_STRING], ["role", REASONING_ROLE])],
  [EventType.REASONING_MESSAGE_END, shape(["messageId", REQUIRED_STRING])],
  [
    EventType.TOOL_CALL_START,
    // `parentMessageId: null` is registry-tolerated (R-DEP-6): not clean, as for TOOL_CALL_CHUNK.
    shape(["toolCallId", REQUIRED_STRING], ["toolCallName", REQUIRED_STRING], ["parentMessageId", OPTIONAL_STRING]),
  ],
  [EventType.TOOL_CALL_END, shape(["toolCallId", REQUIRED_STRING])],
  [EventType.STEP_STARTED, shape(["stepName", REQUIRED_STRING])],
  [EventType.STEP_FINISHED, shape(["stepName", REQUIRED_STRING])],
  // A run's start and end without the fields whose checks are the full path's (an input, a
  // protocol version to compare, a result, an outcome, usage): one-sided, as a tool result's array content.
  [
    EventType.RUN_STARTED,
    runShape(
      ["threadId", REQUIRED_STRING],
      ["runId", REQUIRED_STRING],
      ["parentRunId", OPTIONAL_STRING],
      ["protocolVersion", ABSENT],
      ["input", ABSENT],
    ),
  ],
  [
    EventType.RUN_FINISHED,
    runShape(
      ["threadId", REQUIRED_STRING],
      ["runId", REQUIRED_STRING],
      ["result", ABSENT],
      ["outcome", ABSENT],
      ["usage", ABSENT],
    ),
  ],
  [
    EventType.REASONING_ENCRYPTED_VALUE,
    shape(["subtype", VALUE_SUBTYPE], ["entityId", REQUIRED_STRING], ["encryptedValue", REQUIRED_STRING]),
  ],
  [
    EventType.TOOL_CALL_RESULT,
    // `content` may also be an array of content parts: the one case where this check is not exact,
    // on the safe side (such an event takes the full path, which decides; see the property test).
    shape(
      ["messageId", REQUIRED_STRING],
      ["toolCallId", REQUIRED_STRING],
      ["content", REQUIRED_STRING],
      ["role", OPTIONAL_TOOL_ROLE],
    ),
  ],
  // A conversation's activity and state: a few per run, each took the strip walk and zod (the
  // largest share of enforcement's time in the parallel conversation, issue 23).
  [
    EventType.ACTIVITY_SNAPSHOT,
    shape(
      ["messageId", REQUIRED_STRING],
      ["activityType", REQUIRED_STRING],
      ["content", OBJECT],
      ["replace", OPTIONAL_BOOLEAN],
    ),
  ],
  [
    EventType.ACTIVITY_DELTA,
    shape(["messageId", REQUIRED_STRING], ["activityType", REQUIRED_STRING], ["patch", JSON_PATCH]),
  ],
  [EventType.STATE_SNAPSHOT, shape(["snapshot", PRESENT])],
  [EventType.STATE_DELTA, shape(["delta", JSON_PATCH])],
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
  const { names, kinds } = shape;
  for (let i = 0; i < names.length; i++) {
    const value = event[names[i]!];
    switch (kinds[i]!) {
      case REQUIRED_STRING:
        if (typeof value !== "string") return false;
        break;
      case OPTIONAL_STRING:
        if (value !== undefined && typeof value !== "string") return false;
        break;
      case OPTIONAL_TEXT_ROLE:
        if (value !== undefined && !(typeof value === "string" && TEXT_ROLES.has(value))) return false;
        break;
      case REASONING_ROLE:
        if (value !== "reasoning") return false;
        break;
      case VALUE_SUBTYPE:
        if (value !== "message" && value !== "tool-call") return false;
        break;
      case OPTIONAL_TOOL_ROLE:
        if (value !== undefined && value !== "tool") return false;
        break;
      case ABSENT:
        if (value !== undefined) return false;
        break;
      case OBJECT:
        if (!isPlainObject(value)) return false;
        break;
      case OPTIONAL_BOOLEAN:
        if (value !== undefined && typeof value !== "boolean") return false;
        break;
      case PRESENT:
        if (value === undefined) return false;
        break;
      case JSON_PATCH:
        // The patch alone through zod (its operations are open objects: nothing in them is stripped).
        if (!JsonPatchSchema.safeParse(value).success) return false;
        break;
    }
  }
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
