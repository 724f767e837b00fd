import { EventType } from "@ag-ui/core";

/** Which legacy item an event belongs to: the thinking span or the thinking message (0.x had one of each open at most). */
export type LegacyItem = "span" | "message";

/** What a legacy event does to its item. */
export type LegacyAction = "open" | "continue" | "close";

/** One row of the deprecation registry's mapping (R-DEP-2), with what the row does to the open legacy item. */
export interface LegacyShape {
  /** The retired 0.x type, e.g. `THINKING_START`. */
  readonly legacyType: string;
  /** Its 1.0 replacement, e.g. `REASONING_START`. */
  readonly target: string;
  readonly item: LegacyItem;
  readonly action: LegacyAction;
  /** The THINKING_UPCAST warning's message, built once (R-DEP-4, R-VER-7: it says what to upgrade). */
  readonly notice: string;
}

const shape = (legacyType: string, target: string, item: LegacyItem, action: LegacyAction): LegacyShape => ({
  legacyType,
  target,
  item,
  action,
  notice: `${legacyType} translated to ${target} (retired in AG-UI 1.0, R-DEP-2); upgrade the producer to emit ${target}`,
});

/**
 * The retired `THINKING_*` shapes by type (R-DEP-2, R-DEP-5). There never was a chunk form, so a
 * `THINKING_*` type not in this table is not legacy material: it passes through and enforcement
 * drops it as an unknown type.
 */
export const LEGACY_THINKING: ReadonlyMap<string, LegacyShape> = new Map(
  [
    shape("THINKING_START", EventType.REASONING_START, "span", "open"),
    shape("THINKING_END", EventType.REASONING_END, "span", "close"),
    shape("THINKING_TEXT_MESSAGE_START", EventType.REASONING_MESSAGE_START, "message", "open"),
    shape("THINKING_TEXT_MESSAGE_CONTENT", EventType.REASONING_MESSAGE_CONTENT, "message", "continue"),
    shape("THINKING_TEXT_MESSAGE_END", EventType.REASONING_MESSAGE_END, "message", "close"),
  ].map((s) => [s.legacyType, s]),
);

/**
 * `REASONING_*` type → the retired `THINKING_*` shape it downgrades to (downcastToThinking): the same
 * table read backwards, so the two directions cannot drift apart. `REASONING_ENCRYPTED_VALUE` and
 * `REASONING_MESSAGE_CHUNK` have no 0.x form ("No chunk form existed").
 */
export const THINKING_BY_REASONING: ReadonlyMap<string, LegacyShape> = new Map(
  [...LEGACY_THINKING.values()].map((shape) => [shape.target, shape]),
);
