import type { ReasoningWarning, WarningOptions } from "./types";
import { truncateId } from "./errors";

/** Renders a warning as one line for the console (D-WARN). Contains only what the warning contains (D-REDACT). */
export function formatWarning(w: ReasoningWarning): string {
  const where = w.eventIndex !== undefined ? ` at event #${w.eventIndex}` : "";
  const type = w.eventType ? ` ${w.eventType}` : "";
  const ids = w.ids && w.ids.length > 0 ? ` [${w.ids.map((i) => JSON.stringify(truncateId(i))).join(", ")}]` : "";
  const rule = w.rule ? ` (${w.rule})` : "";
  return `[agui-reasoning] ${w.code}${rule}${where}${type}${ids}: ${w.message}`;
}

/**
 * Resolves the warning sink of an operator's options: the user's `onWarning`, or `console.warn`.
 * `quiet` silences non-lossy warnings only (R-VER-7: lossy warnings are never silenced by default,
 * and no flag silences them at the default sink).
 *
 * `listened` tells whether someone subscribes to a `warnings$` stream delivering the same warnings:
 * then that subscriber is where they go, and the default sink stays silent (D-WARN-SINK: the
 * README's program printed every warning twice). A custom `onWarning` gets them either way.
 */
export function warningSink(
  options: WarningOptions | undefined,
  listened?: () => boolean,
): (w: ReasoningWarning) => void {
  const custom = options?.onWarning;
  const quiet = options?.quiet === true;
  if (custom)
    return quiet
      ? (w) => {
          if (w.lossy) custom(w);
        }
      : custom;
  return (w) => {
    if ((quiet && !w.lossy) || listened?.() === true) return;
    console.warn(formatWarning(w));
  };
}
