import type { ReasoningWarning, StepContext } from "../core/types";
import type { LegacyShape } from "./legacy-thinking";
import { METADATA_KEY } from "./thinking-title";

/** The warnings `upcastThinking` emits (D-WARN). Messages name types, ids and JSON paths only, never the title (D-REDACT). */
export const UPCAST_WARNING_CODES = {
  /** A retired `THINKING_*` event was translated to its `REASONING_*` replacement (R-DEP-2/4, R-VER-10). */
  THINKING_UPCAST: "THINKING_UPCAST",
  /** `THINKING_START.title` now rides in the `REASONING_START`'s metadata (D-THINK-TITLE, R-VER-12). */
  THINKING_TITLE_MOVED: "THINKING_TITLE_MOVED",
  /** `THINKING_START.title` could not be kept: the producer's metadata already uses its place. Lossy (R-VER-12). */
  THINKING_TITLE_DROPPED: "THINKING_TITLE_DROPPED",
} as const;

const C = UPCAST_WARNING_CODES;

export function upcastWarning(shape: LegacyShape, id: string, ctx: StepContext): ReasoningWarning {
  return {
    code: C.THINKING_UPCAST,
    rule: "R-DEP-4",
    message: shape.notice,
    eventType: shape.legacyType,
    eventIndex: ctx.index,
    ids: [id],
  };
}

export function titleMovedWarning(id: string, ctx: StepContext): ReasoningWarning {
  return {
    code: C.THINKING_TITLE_MOVED,
    rule: "D-THINK-TITLE",
    message:
      `THINKING_START /title moved to REASONING_START /metadata/${METADATA_KEY}/thinkingTitle ` +
      "(REASONING_START has no title field, R-VER-12)",
    eventType: "THINKING_START",
    eventIndex: ctx.index,
    path: "/title",
    ids: [id],
  };
}

export function titleDroppedWarning(id: string, ctx: StepContext): ReasoningWarning {
  return {
    code: C.THINKING_TITLE_DROPPED,
    rule: "R-VER-12",
    message:
      `THINKING_START /title dropped: REASONING_START has no title field and the event's /metadata/${METADATA_KEY} ` +
      "is not an object free of thinkingTitle, so the producer's metadata was kept unchanged",
    eventType: "THINKING_START",
    eventIndex: ctx.index,
    path: "/title",
    ids: [id],
    lossy: true,
  };
}
