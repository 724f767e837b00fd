import { typeOf } from "../core/errors";
import type { ReasoningWarning, StepContext } from "../core/types";
import { idsOf } from "./event-ids";
import { OWN_PROTOCOL_VERSION, type VersionVerdict } from "./protocol-version";
import type { StripNote } from "./strip-unknown";

/** The warnings `enforceSchema` emits (D-WARN). Messages name types, ids and JSON paths only (D-REDACT). */
export const ENFORCE_WARNING_CODES = {
  /** An event type AG-UI 1.0 does not describe was dropped (R-PROC-1/6). */
  UNKNOWN_EVENT_TYPE: "UNKNOWN_EVENT_TYPE",
  /** An undescribed property of a closed object was removed (R-PROC-2/6/7). */
  STRIPPED_PROPERTY: "STRIPPED_PROPERTY",
  /** An unrecognised union member was removed, with the field, list element or containing value it sat in (R-PROC-3/11). */
  UNKNOWN_UNION_MEMBER: "UNKNOWN_UNION_MEMBER",
  /** A `REASONING_ENCRYPTED_VALUE` with an unrecognised string `subtype` was removed whole (R-REASON-24). */
  UNKNOWN_SUBTYPE: "UNKNOWN_SUBTYPE",
  /** A registry-tolerated whole-field `null` was converted to absent (R-DEP-6). */
  NULL_TOLERATED: "NULL_TOLERATED",
  /** `RUN_STARTED.protocolVersion` is newer than 1.0 or uninterpretable; the run proceeds (R-VER-16/17). */
  PROTOCOL_VERSION: "PROTOCOL_VERSION",
} as const;

const C = ENFORCE_WARNING_CODES;

/** Longest protocol version string a warning repeats. */
const MAX_VERSION_CHARS = 40;

/** The retired 0.x reasoning events upcastThinking translates (R-DEP-2); any other THINKING_* type was never an event. */
const RETIRED_THINKING_TYPES: ReadonlySet<string> = new Set([
  "THINKING_START",
  "THINKING_END",
  "THINKING_TEXT_MESSAGE_START",
  "THINKING_TEXT_MESSAGE_CONTENT",
  "THINKING_TEXT_MESSAGE_END",
]);

export function unknownTypeWarning(event: unknown, ctx: StepContext): ReasoningWarning {
  const type = typeOf(event);
  const hint = RETIRED_THINKING_TYPES.has(type)
    ? " (a retired 0.x shape: upcastThinking must run before enforceSchema to translate it)"
    : type.startsWith("THINKING_")
      ? " (nor did 0.x: the retired reasoning events are THINKING_START/END and THINKING_TEXT_MESSAGE_START/CONTENT/END)"
      : "";
  return {
    code: C.UNKNOWN_EVENT_TYPE,
    rule: "R-PROC-1",
    message: `dropped an event of type ${JSON.stringify(type)}, which AG-UI 1.0 does not describe${hint}`,
    eventType: type,
    eventIndex: ctx.index,
    ids: idsOf(event),
  };
}

/** One warning per note of the strip walk. */
export function stripWarnings(notes: readonly StripNote[], event: unknown, ctx: StepContext): ReasoningWarning[] {
  const type = typeOf(event);
  const ids = idsOf(event);
  return notes.map((note) => ({
    ...noteWarning(note, type),
    eventType: type,
    eventIndex: ctx.index,
    path: note.path,
    ids,
  }));
}

function noteWarning(note: StripNote, type: string): Pick<ReasoningWarning, "code" | "rule" | "message" | "lossy"> {
  switch (note.kind) {
    case "stripped-property":
      return {
        code: C.STRIPPED_PROPERTY,
        rule: "R-PROC-2",
        message: `removed ${note.path}: AG-UI 1.0 does not describe this property of a closed object in ${type}`,
      };
    case "null-tolerated":
      return {
        code: C.NULL_TOLERATED,
        rule: "R-DEP-6",
        message: `converted ${note.path}: null to an absent field (a deprecated shape the registry tolerates until 2027-09-17; producers must omit the field)`,
      };
    case "unknown-member":
      return memberWarning(note, type);
  }
}

function memberWarning(note: StripNote, type: string): Pick<ReasoningWarning, "code" | "rule" | "message" | "lossy"> {
  const removed = note.removedPath ?? note.path;
  if (removed === "" && type === "REASONING_ENCRYPTED_VALUE") {
    return {
      code: C.UNKNOWN_SUBTYPE,
      rule: "R-REASON-24",
      message: `removed the whole event: ${note.path} is a string AG-UI 1.0 does not name, in a required position; its encrypted value is not stored`,
      // An encrypted value is lost (R-REASON-19): never silenced.
      lossy: true,
    };
  }
  const what =
    removed === ""
      ? "the whole event, because the member sits in a required position"
      : removed === note.path
        ? "it"
        : `${removed}, the value containing it, because the member sits in a required position`;
  return {
    code: C.UNKNOWN_UNION_MEMBER,
    rule: "R-PROC-3",
    message: `${note.path} is a union member AG-UI 1.0 does not describe (perhaps from a newer version); removed ${what}`,
  };
}

/** A warning for a newer or uninterpretable `RUN_STARTED.protocolVersion`; `undefined` when quiet. */
export function protocolVersionWarning(
  declared: string,
  verdict: VersionVerdict,
  event: unknown,
  ctx: StepContext,
): ReasoningWarning | undefined {
  if (verdict === "same" || verdict === "older") return undefined;
  // The declaration is protocol metadata, not content: it may be shown, truncated.
  const shown = JSON.stringify(
    declared.length > MAX_VERSION_CHARS ? `${declared.slice(0, MAX_VERSION_CHARS - 1)}…` : declared,
  );
  const message =
    verdict === "newer"
      ? `the producer declares protocolVersion ${shown}, newer than ${OWN_PROTOCOL_VERSION}: proceeding under the processing model (newer material is stripped with warnings)`
      : `cannot interpret protocolVersion ${shown} (not MAJOR.MINOR): proceeding as for a newer version than ${OWN_PROTOCOL_VERSION}`;
  return {
    code: C.PROTOCOL_VERSION,
    rule: verdict === "newer" ? "R-VER-17" : "R-VER-16",
    message,
    eventType: "RUN_STARTED",
    eventIndex: ctx.index,
    path: "/protocolVersion",
    ids: idsOf(event),
  };
}
