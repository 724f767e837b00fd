import type { ReasoningWarning, WarningOptions } from "./types";
import { quotedId } from "./errors";

/** Renders a warning as one line for the console (D-WARN). Contains only what the warning contains (D-REDACT). */
export function formatWarning(w: ReasoningWarning): string {
  if (typeof w !== "object" || w === null)
    throw new TypeError("agui-reasoning: formatWarning expects a ReasoningWarning");
  const where = w.eventIndex !== undefined ? ` at event #${w.eventIndex}` : "";
  const type = w.eventType ? ` ${w.eventType}` : "";
  const ids = w.ids && w.ids.length > 0 ? ` [${w.ids.map(quotedId).join(", ")}]` : "";
  const rule = w.rule ? ` (${w.rule})` : "";
  return `[agui-reasoning] ${w.code}${rule}${where}${type}${ids}: ${w.message}`;
}

/**
 * The warning sink of an operator's options: the user's `onWarning`, or `console.warn`, where `quiet`
 * silences non-lossy warnings only (R-VER-7). `listened`: someone subscribes to a `warnings$` with the
 * same warnings, so the default sink stays silent (D-WARN-SINK: the README's program printed every
 * warning twice); a custom `onWarning` gets them either way.
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
