import { PROTOCOL_VERSION } from "@ag-ui/core";
import { typeOf } from "../core/errors";
import type { ReasoningWarning, StepContext } from "../core/types";
import { catalogued, type WarningDetails } from "../core/warning-codes";
import { idsOf } from "./event-ids";
import type { VersionVerdict } from "./protocol-version";
import type { StripNote } from "./strip-unknown";
import { LEGACY_THINKING } from "../upcast/legacy-thinking";

// The warnings `enforceSchema` emits (D-WARN, catalogued in WARNING_CODES). Messages name types, ids and JSON
// paths only (D-REDACT).

/** Longest protocol version string a warning repeats. */
const MAX_VERSION_CHARS = 40;

export function unknownTypeWarning(event: unknown, ctx: StepContext): ReasoningWarning {
  const type = typeOf(event);
  // A retired 0.x reasoning event is one upcastThinking translates (R-DEP-2); no other THINKING_* type existed.
  const hint = LEGACY_THINKING.has(type)
    ? " (a retired 0.x shape: upcastThinking must run before enforceSchema to translate it)"
    : type.startsWith("THINKING_")
      ? " (nor did 0.x: the retired reasoning events are THINKING_START/END and THINKING_TEXT_MESSAGE_START/CONTENT/END)"
      : "";
  return catalogued("UNKNOWN_EVENT_TYPE", "R-PROC-1", {
    message: `dropped an event of type ${JSON.stringify(type)}, which AG-UI 1.0 does not describe${hint}`,
    eventType: type,
    eventIndex: ctx.index,
    ids: idsOf(event),
  });
}

/** One warning per note of the strip walk. */
export function stripWarnings(notes: readonly StripNote[], event: unknown, ctx: StepContext): ReasoningWarning[] {
  const type = typeOf(event);
  const ids = idsOf(event);
  return notes.map((note) => noteWarning(note, { eventType: type, eventIndex: ctx.index, path: note.path, ids }));
}

/** Where a strip note's warning is: everything but its message. */
type Where = Omit<WarningDetails, "message">;

function noteWarning(note: StripNote, where: Where): ReasoningWarning {
  const type = where.eventType!;
  switch (note.kind) {
    case "stripped-property":
      return catalogued("STRIPPED_PROPERTY", "R-PROC-2", {
        message: `removed ${note.path}: AG-UI 1.0 does not describe this property of a closed object in ${type}`,
        ...where,
      });
    case "null-tolerated":
      return catalogued("NULL_TOLERATED", "R-DEP-6", {
        message: `converted ${note.path}: null to an absent field (a deprecated shape the registry tolerates until 2027-09-17; producers must omit the field)`,
        ...where,
      });
    case "unknown-member":
      return memberWarning(note, where);
  }
}

function memberWarning(note: StripNote, where: Where): ReasoningWarning {
  const removed = note.removedPath ?? note.path;
  if (removed === "" && where.eventType === "REASONING_ENCRYPTED_VALUE") {
    // An encrypted value is lost (R-REASON-19): lossy, never silenced.
    return catalogued("UNKNOWN_SUBTYPE", "R-REASON-24", {
      message: `removed the whole event: ${note.path} is a string AG-UI 1.0 does not name, in a required position; its encrypted value is not stored`,
      ...where,
    });
  }
  const what =
    removed === ""
      ? "the whole event, because the member sits in a required position"
      : removed === note.path
        ? "it"
        : `${removed}, the value containing it, because the member sits in a required position`;
  return catalogued("UNKNOWN_UNION_MEMBER", "R-PROC-3", {
    message: `${note.path} is a union member AG-UI 1.0 does not describe (perhaps from a newer version); removed ${what}`,
    ...where,
  });
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
      ? `the producer declares protocolVersion ${shown}, newer than ${PROTOCOL_VERSION}: proceeding under the processing model (newer material is stripped with warnings)`
      : `cannot interpret protocolVersion ${shown} (not MAJOR.MINOR): proceeding as for a newer version than ${PROTOCOL_VERSION}`;
  return catalogued("PROTOCOL_VERSION", verdict === "newer" ? "R-VER-17" : "R-VER-16", {
    message,
    eventType: "RUN_STARTED",
    eventIndex: ctx.index,
    path: "/protocolVersion",
    ids: idsOf(event),
  });
}
