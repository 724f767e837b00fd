import { AGUIError } from "@ag-ui/core";
import { isPlainObject } from "./json";

/**
 * Every way this package rejects a stream, keyed by code (`ERROR_CODES.ORPHAN_CONTENT` is
 * `"ORPHAN_CONTENT"`). Stable: users match on `code`. Documented in docs/errors.md with the rule each
 * one implements.
 */
export const ERROR_CODES = {
  /** A known field carries a value its schema rejects (R-PROC-4, R-REASON-23). Also non-object events. */
  MALFORMED_EVENT: "MALFORMED_EVENT",
  /** CONTENT/END (or span END) naming an item that is not open (R-REASON-9/10/14, R-STREAM-2, R-TEXT-9). */
  ORPHAN_CONTENT: "ORPHAN_CONTENT",
  ORPHAN_END: "ORPHAN_END",
  /** START naming an item already open (R-REASON-10/11, R-STREAM-1). */
  DUPLICATE_OPEN: "DUPLICATE_OPEN",
  /** A span/message/tool call/step still open at RUN_FINISHED (R-REASON-13, R-RUN-4, R-STREAM-3). */
  OPEN_AT_RUN_FINISHED: "OPEN_AT_RUN_FINISHED",
  /** The source completed while a run was open (D-TRUNC, R-TRANS-3). */
  RUN_TRUNCATED: "RUN_TRUNCATED",
  /** First chunk of an item without its id (or tool name) (R-STREAM-10/11). */
  FIRST_CHUNK_WITHOUT_ID: "FIRST_CHUNK_WITHOUT_ID",
  /** An id-less continuation with several candidate lanes (R-STREAM-16). */
  AMBIGUOUS_CONTINUATION: "AMBIGUOUS_CONTINUATION",
  /** A continuation chunk repeating an opener field with another value (R-STREAM-14). */
  CONFLICTING_CHUNK_FIELD: "CONFLICTING_CHUNK_FIELD",
  /** THINKING_* content/end without its start (D-THINK-ORPHAN). */
  LEGACY_ORPHAN: "LEGACY_ORPHAN",
  /** REASONING_MESSAGE_START for a non-reasoning message or the reverse (D-ROLE-CONFLICT). */
  ID_ROLE_CONFLICT: "ID_ROLE_CONFLICT",
  /** A continuation whose subagentRunId disagrees with its opener (R-SUB-2, D-SPAN-OWNER). */
  ATTRIBUTION_MISMATCH: "ATTRIBUTION_MISMATCH",
  /** First event not RUN_STARTED/RUN_ERROR, or an event after the run closed (R-RUN-1/7/8). */
  EVENT_OUTSIDE_RUN: "EVENT_OUTSIDE_RUN",
  /** RUN_STARTED while a run is open (R-RUN-9). */
  NESTED_RUN: "NESTED_RUN",
  /** More open items than `maxOpenItems` allows. */
  LIMIT_EXCEEDED: "LIMIT_EXCEEDED",
} as const;

/** The type of `ReasoningProtocolError.code`. */
export type ReasoningErrorCode = keyof typeof ERROR_CODES;

export interface ReasoningProtocolErrorInit {
  readonly code: ReasoningErrorCode;
  /** The R-/D- id of the rule that was broken. */
  readonly rule: string;
  /** Index of the offending event in the source stream. */
  readonly eventIndex: number;
  /** Type of the offending event (`"<non-object>"` when it had none). */
  readonly eventType: string;
  /** Ids involved (message/span/tool-call/step ids). Never content. */
  readonly ids?: readonly string[];
  /** One sentence explaining the violation. Must not contain deltas or encrypted values (D-REDACT). */
  readonly detail: string;
  /** The offending event, for programs. Never rendered into `message`. */
  readonly event?: unknown;
}

/**
 * The consumer rejects the stream (digest §0.2 FAIL). Distinct from a producer `RUN_ERROR`, which is
 * forwarded as an ordinary event (R-RUN-13).
 */
export class ReasoningProtocolError extends AGUIError {
  readonly code: ReasoningErrorCode;
  readonly rule: string;
  readonly eventIndex: number;
  readonly eventType: string;
  readonly ids: readonly string[];
  /** The offending event. Not enumerable, so logging the error object does not print its content. */
  declare readonly event: unknown;

  constructor(init: ReasoningProtocolErrorInit) {
    checkInit(init);
    const ids = init.ids ?? [];
    const idText = ids.length > 0 ? ` [${ids.map(quotedId).join(", ")}]` : "";
    super(`${init.code} (${init.rule}) at event #${init.eventIndex} ${init.eventType}${idText}: ${init.detail}`);
    this.name = "ReasoningProtocolError";
    this.code = init.code;
    this.rule = init.rule;
    this.eventIndex = init.eventIndex;
    this.eventType = init.eventType;
    this.ids = Object.freeze([...ids]);
    Object.defineProperty(this, "event", { value: init.event, enumerable: false });
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * A `TypeError` naming the field of `init` at fault (never its value, D-REDACT), where a malformed one
 * (an app building the errors its tests expect) would fail inside the constructor or give an error
 * that names nothing. `code` is not looked up in ERROR_CODES: that would bundle the catalogue into
 * every chat UI for a constructor check.
 */
function checkInit(init: unknown): asserts init is ReasoningProtocolErrorInit {
  const wrong = wrongField((typeof init === "object" && init !== null ? init : {}) as Record<string, unknown>, "code");
  if (wrong !== undefined)
    throw new TypeError(
      `agui-reasoning: ReasoningProtocolError(init): \`init.${wrong}\` is missing or wrong; init is { code, rule, eventIndex, eventType, detail, ids?, event? }: strings, eventIndex a non-negative integer, ids an array of strings`,
    );
}

/**
 * The first field of an error's description that is not what it must be (`rule`, `eventType`,
 * `detail` and `also` strings, `eventIndex` a non-negative integer, `ids` absent or an array of
 * strings), or undefined: the check `ReasoningProtocolError` and `DowncastError` share.
 */
export function wrongField(given: Record<string, unknown>, also?: string): string | undefined {
  const { eventIndex, ids } = given;
  return (
    [also, "rule", "eventType", "detail"].find((field) => field !== undefined && typeof given[field] !== "string") ??
    (typeof eventIndex === "number" && Number.isSafeInteger(eventIndex) && eventIndex >= 0
      ? undefined
      : "eventIndex") ??
    (ids === undefined || (Array.isArray(ids) && ids.every((id) => typeof id === "string")) ? undefined : "ids")
  );
}

/** Ids are opaque and may be huge (hostile input); messages show at most 120 characters of one. */
export function truncateId(id: string): string {
  return id.length > 120 ? `${id.slice(0, 117)}…` : id;
}

/** An id as a message shows it: JSON-quoted, truncated. */
export function quotedId(id: string): string {
  return JSON.stringify(truncateId(id));
}

/** The type of an event for error messages, safe on any input. */
export function typeOf(event: unknown): string {
  if (isPlainObject(event)) {
    const t = (event as { type?: unknown }).type;
    if (typeof t === "string") return t.length > 80 ? `${t.slice(0, 77)}…` : t;
    return "<no type>";
  }
  return `<non-object: ${event === null ? "null" : Array.isArray(event) ? "array" : typeof event}>`;
}

export function isReasoningProtocolError(e: unknown): e is ReasoningProtocolError {
  return e instanceof ReasoningProtocolError;
}

/**
 * The error about `event`, raised while processing the source event at `ctx.index`. Every stage
 * builds its errors with this. `detail` holds types, ids, fields and counts only (D-REDACT).
 * `eventType`: what the message names when `event`'s own type must not be read again (a legacy
 * event read once, the end of the stream).
 */
export function protocolError(
  code: ReasoningErrorCode,
  rule: string,
  event: unknown,
  ctx: { readonly index: number },
  ids: readonly string[],
  detail: string,
  eventType = typeOf(event),
): ReasoningProtocolError {
  return new ReasoningProtocolError({ code, rule, eventIndex: ctx.index, eventType, ids, detail, event });
}
