import { EventType } from "@ag-ui/core";
import type { AguiEvent } from "../core/types";
import type { OpenItem } from "./repair-state";

/** The `code` of every RUN_ERROR / SUBAGENT_ERROR `repairStream` synthesizes: a UI can tell a repaired failure from a producer's. */
export const REPAIRED_TRUNCATION = "REPAIRED_TRUNCATION";

/** The legacy closer of each legacy item (R-DEP-2). */
const LEGACY_CLOSER = { span: "THINKING_END", message: "THINKING_TEXT_MESSAGE_END" } as const;

/**
 * The event that closes `item`: its family's END with the item's id and owner, nothing more (no
 * content, no metadata: repair invents no meaning, R-VER-3). A subagent invocation is closed with
 * SUBAGENT_ERROR — never with SUBAGENT_FINISHED, which would report a success nobody reported.
 */
export function closingEvent(item: OpenItem): AguiEvent {
  if (item.kind === "legacy") return { type: LEGACY_CLOSER[item.item] };
  const { family, id, owner } = item;
  if (family.key === "subagentRunId") {
    return {
      type: EventType.SUBAGENT_ERROR,
      subagentRunId: id,
      message: "agui-reasoning repairStream: the subagent invocation had not ended when its run did",
      code: REPAIRED_TRUNCATION,
    };
  }
  const end: Record<string, unknown> = { type: family.closes[0]!, [family.key]: id };
  if (owner !== undefined) end.subagentRunId = owner;
  return end as AguiEvent;
}

/** The RUN_ERROR that ends a run the producer never terminated (never a RUN_FINISHED: no success is invented, D-TRUNC). */
export function repairedRunError(why: string): AguiEvent {
  return { type: EventType.RUN_ERROR, message: `agui-reasoning repairStream: ${why}`, code: REPAIRED_TRUNCATION };
}

/** The ids of `items` for a warning (legacy items have none: 0.x shapes carry no id, R-DEP-5). */
export function idsOf(items: readonly OpenItem[]): string[] {
  return items.flatMap((item) => (item.kind === "family" ? [item.id] : []));
}
