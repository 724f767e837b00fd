import { HOLE, isPlainObject, jsonType, NotJsonData } from "../core/json";
import type { Message } from "@ag-ui/core";
import { RoleSchema } from "@ag-ui/core/schemas";
import { protocolError, typeOf, type ReasoningProtocolError } from "../core/errors";
import type { AguiEvent, ReasoningWarning, StepContext } from "../core/types";
import { catalogued, type ReasoningWarningCode, type WarningRule } from "../core/warning-codes";
import { ownCopy } from "./own-copy";

/**
 * Guarded reads of event fields. Input reaching the history stage is validated already, but the
 * stage may be used on its own: whatever it reads is checked, and a bad value is a
 * `ReasoningProtocolError` naming the event (R-PROC-4), never a `TypeError`. Details name fields
 * and JSON types only, never values (D-REDACT).
 */

type Metadata = Record<string, unknown>;

/** A malformed known field (R-PROC-4). */
export function malformed(
  event: unknown,
  ctx: StepContext,
  detail: string,
  ids: readonly string[] = [],
): ReasoningProtocolError {
  return protocolError("MALFORMED_EVENT", "R-PROC-4", event, ctx, ids, detail);
}

/** The event itself, if it is an object with a string `type`. */
export function readEvent(event: unknown, ctx: StepContext): AguiEvent {
  if (typeof event !== "object" || event === null || Array.isArray(event)) {
    throw malformed(event, ctx, `an event must be an object (got ${jsonType(event)})`);
  }
  if (typeof (event as { type?: unknown }).type !== "string") throw malformed(event, ctx, "`type` must be a string");
  return event as AguiEvent;
}

/**
 * `read()` of the input, where a throw (a getter or proxy trap, a revoked proxy, a cycle) becomes
 * MALFORMED_EVENT naming the field (docs/security.md). For the rare reads; the per-event ones below
 * inline the same try/catch (no closure per event).
 */
export function guarded<T>(event: AguiEvent, ctx: StepContext, path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw unreadable(event, ctx, path, error);
  }
}

/** The MALFORMED_EVENT for a field that could not be read. The thrown error's own message is not kept: hostile code wrote it (D-REDACT). */
function unreadable(event: AguiEvent, ctx: StepContext, path: string, error: unknown): ReasoningProtocolError {
  const why = error instanceof NotJsonData ? error.message : "reading it threw";
  return malformed(event, ctx, `\`${path}\` could not be read as JSON data: ${why}`);
}

/** The field `field` of the event, read where a throw becomes MALFORMED_EVENT. */
export function readField(event: AguiEvent, field: string, ctx: StepContext): unknown {
  try {
    return event[field];
  } catch (error) {
    throw unreadable(event, ctx, field, error);
  }
}

/**
 * The package's own copy of the JSON value of field `field` (D-NO-ALIAS), read once, where a throw
 * becomes MALFORMED_EVENT: the history stores only such copies of what an event nests. Absent stays
 * `undefined`, a string is itself (no copy).
 */
export function readOwnCopy(event: AguiEvent, field: string, ctx: StepContext): unknown {
  try {
    const value = event[field];
    return typeof value === "object" && value !== null ? ownCopy(value) : value;
  } catch (error) {
    throw unreadable(event, ctx, field, error);
  }
}

export function readString(event: AguiEvent, field: string, ctx: StepContext): string {
  const value = readField(event, field, ctx);
  if (typeof value !== "string") throw malformed(event, ctx, `\`${field}\` must be a string (got ${jsonType(value)})`);
  return value;
}

export function readOptionalString(event: AguiEvent, field: string, ctx: StepContext): string | undefined {
  const value = readField(event, field, ctx);
  if (value === undefined || typeof value === "string") return value;
  throw malformed(event, ctx, `\`${field}\` must be a string when present (got ${jsonType(value)})`);
}

/** `metadata`: absent, or an object (never `null`, R-META-1); the package's own copy (D-NO-ALIAS). */
export function readMetadata(event: AguiEvent, ctx: StepContext): Metadata | undefined {
  const value = readOwnCopy(event, "metadata", ctx);
  if (value === undefined) return undefined;
  if (isPlainObject(value)) return value;
  throw malformed(event, ctx, `\`metadata\` must be an object when present (got ${jsonType(value)})`);
}

/** An object field, as the package's own copy (D-NO-ALIAS). */
export function readObject(event: AguiEvent, field: string, ctx: StepContext): Record<string, unknown> {
  const value = readOwnCopy(event, field, ctx);
  if (isPlainObject(value)) return value;
  throw malformed(event, ctx, `\`${field}\` must be an object (got ${jsonType(value)})`);
}

/**
 * A list of messages at `path` (each an object with string `id` and `role`). `value` must be the
 * package's own copy (`readOwnCopy`): the messages returned are stored as they are.
 */
export function readMessages(value: unknown, path: string, event: AguiEvent, ctx: StepContext): readonly Message[] {
  if (!Array.isArray(value)) throw malformed(event, ctx, `\`${path}\` must be an array (got ${jsonType(value)})`);
  for (let i = 0; i < value.length; i++) {
    const problem = messageProblem(value[i]);
    if (problem !== undefined) throw malformed(event, ctx, `\`${path}/${i}\`: ${problem}`);
  }
  return value as readonly Message[];
}

/** Why `value` cannot be held as a message, or `undefined` when it can. */
export function messageProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return `a message must be an object (got ${jsonType(value)})`;
  if (typeof value.id !== "string") return `\`id\` must be a string (got ${jsonType(value.id)})`;
  if (typeof value.role !== "string") return `\`role\` must be a string (got ${jsonType(value.role)})`;
  const calls = value.toolCalls;
  if (value.role === "assistant" && calls !== undefined) {
    if (!Array.isArray(calls)) return `\`toolCalls\` must be an array (got ${jsonType(calls)})`;
    for (let k = 0; k < calls.length; k++) {
      // A hole is refused as every way in refuses it (D-HISTORY-IDS), not taken for a missing call.
      if (!(k in calls)) return `\`toolCalls[${k}]\` is not JSON data: ${HOLE}`;
      const call: unknown = calls[k];
      if (!isPlainObject(call) || typeof call.id !== "string")
        return "every tool call must be an object with a string `id`";
    }
  }
  return undefined;
}

/** Metadata merge (R-META-4): key by key, last write wins, never recursive. */
export function mergeMetadata(held: unknown, incoming: Metadata): Metadata {
  return isPlainObject(held) ? { ...held, ...incoming } : { ...incoming };
}

/** A warning about `event` (D-WARN), lossy as `WARNING_CODES` says. `message` must hold no content (D-REDACT). */
export function warning<C extends ReasoningWarningCode>(
  code: C,
  rule: WarningRule<C>,
  event: AguiEvent,
  ctx: StepContext,
  ids: readonly string[],
  message: string,
  path?: string,
): ReasoningWarning {
  const where = { message, eventType: typeOf(event), eventIndex: ctx.index, ids };
  return catalogued(code, rule, path === undefined ? where : { ...where, path });
}

const ROLES: ReadonlySet<string> = new Set(RoleSchema.options);

/** A message role for a detail: one of the seven 1.0 roles, else a placeholder (a seed's role string is not shown). */
export function roleName(role: unknown): string {
  return typeof role === "string" && ROLES.has(role) ? role : "unrecognised-role";
}

/** Whether `role` is one of the seven 1.0 message roles (R-SCHEMA-12). */
export function isRole(role: string): boolean {
  return ROLES.has(role);
}

/**
 * `{ ...source }`, written as a literal with an explicit prototype. The result is the same (own
 * enumerable properties defined as data properties, an own `"__proto__"` key included, prototype
 * `Object.prototype`), but V8 builds it without cloning the source's hidden class, so adding a
 * property the source lacked stays on the fast path: after a plain spread it took ≈ 0.4 µs (a
 * value stored on a message, a first tool call on an assistant message; issue 13).
 */
export function copyOf<T extends object>(source: T): T {
  return { __proto__: Object.prototype, ...source };
}
