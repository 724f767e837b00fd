import { protocolError, type ReasoningProtocolError } from "../core/errors";
import type { StepContext } from "../core/types";
import { jsonType } from "../core/json";
import type { LegacyShape } from "./legacy-thinking";

// Each names the legacy type itself: the raw event's fields are not read again (a getter may throw).

/**
 * A `THINKING_TEXT_MESSAGE_CONTENT`/`_END` or `THINKING_END` with nothing of its kind open
 * (D-THINK-ORPHAN). No id is minted for it: inventing one would invent the item (R-REASON-9).
 */
export function legacyOrphan(
  shape: LegacyShape,
  carriedId: string | undefined,
  event: unknown,
  ctx: StepContext,
): ReasoningProtocolError {
  const opener = shape.item === "span" ? "THINKING_START" : "THINKING_TEXT_MESSAGE_START";
  const ids = carriedId === undefined ? [] : [carriedId];
  const detail = `retired ${shape.legacyType} without an open ${opener}; no ${shape.target} is invented for it.`;
  return protocolError("LEGACY_ORPHAN", "D-THINK-ORPHAN", event, ctx, ids, detail, shape.legacyType);
}

/**
 * A legacy opener while its kind is already open. 0.x spans and messages have no identity of their
 * own (R-DEP-5): the continuation events name "the" open one, so a second opener re-opens the item
 * that is open (R-REASON-10 for spans, R-REASON-11 for messages), whichever ids are minted or carried.
 */
export function legacyDuplicateOpen(
  shape: LegacyShape,
  openId: string,
  carriedId: string | undefined,
  event: unknown,
  ctx: StepContext,
): ReasoningProtocolError {
  const rule = shape.item === "span" ? "R-REASON-10" : "R-REASON-11";
  const ids = carriedId === undefined || carriedId === openId ? [openId] : [openId, carriedId];
  const detail =
    `retired ${shape.legacyType} while the legacy ${shape.item} it translates to is still open; ` +
    `0.x ${shape.item}s have no id, so it must be closed before another opens.`;
  return protocolError("DUPLICATE_OPEN", rule, event, ctx, ids, detail, shape.legacyType);
}

/** `THINKING_START.title` is typed `string` by the 0.x schema (R-DEP-5); moving anything else into metadata would conceal it. */
export function malformedTitle(title: unknown, event: unknown, ctx: StepContext): ReasoningProtocolError {
  const detail = `/title must be a string (0.x schema, R-DEP-5), got ${jsonType(title)}.`;
  return protocolError("MALFORMED_EVENT", "R-PROC-4", event, ctx, [], detail, "THINKING_START");
}

/** A legacy event whose fields cannot be read (a throwing getter, a proxy): not JSON data (R-PROC-4). */
export function unreadableLegacy(legacyType: string, event: unknown, ctx: StepContext): ReasoningProtocolError {
  const detail = "the event could not be read as JSON data";
  return protocolError("MALFORMED_EVENT", "R-PROC-4", event, ctx, [], detail, legacyType);
}
