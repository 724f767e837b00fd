import type { ReasoningWarning, StepContext } from "../core/types";
import { catalogued } from "../core/warning-codes";
import type { LegacyShape } from "./legacy-thinking";
import { METADATA_KEY } from "./thinking-title";

// The warnings `upcastThinking` emits (D-WARN, catalogued in WARNING_CODES). Messages name types, ids and JSON
// paths only, never the title (D-REDACT).

export function upcastWarning(shape: LegacyShape, id: string, ctx: StepContext): ReasoningWarning {
  return catalogued("THINKING_UPCAST", "R-DEP-4", {
    message: shape.notice,
    eventType: shape.legacyType,
    eventIndex: ctx.index,
    ids: [id],
  });
}

export function titleMovedWarning(id: string, ctx: StepContext): ReasoningWarning {
  return catalogued("THINKING_TITLE_MOVED", "D-THINK-TITLE", {
    message:
      `THINKING_START /title moved to REASONING_START /metadata/${METADATA_KEY}/thinkingTitle ` +
      "(REASONING_START has no title field, R-VER-12)",
    eventType: "THINKING_START",
    eventIndex: ctx.index,
    path: "/title",
    ids: [id],
  });
}

export function titleDroppedWarning(id: string, ctx: StepContext): ReasoningWarning {
  return catalogued("THINKING_TITLE_DROPPED", "R-VER-12", {
    message:
      `THINKING_START /title dropped: REASONING_START has no title field and the event's /metadata/${METADATA_KEY} ` +
      "is not an object free of thinkingTitle, so the producer's metadata was kept unchanged",
    eventType: "THINKING_START",
    eventIndex: ctx.index,
    path: "/title",
    ids: [id],
  });
}
