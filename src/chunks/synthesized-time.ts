import type { AguiEvent } from "../core/types";
import { isInstant } from "../core/json";

/**
 * The timestamp of the chunk (or trigger) that caused an event expansion synthesized. The event itself
 * never carries it (R-PROC-15, R-EVT-3); the history still dates a chunked reasoning message by its
 * chunks (D-DURATION). Only STARTs and ENDs are recorded (a CONTENT dates nothing), and a weak map
 * keeps nothing alive: the entry goes with the event.
 */
const synthesizedAt = new WeakMap<object, number>();

/** Records `cause`'s timestamp, when it has a valid one, for the synthesized `event`. */
export function dateSynthesized(event: AguiEvent, cause: AguiEvent): void {
  const stamp = cause.timestamp;
  if (isInstant(stamp)) synthesizedAt.set(event, stamp);
}

/** The timestamp recorded for a synthesized event, if any. */
export function synthesizedTimestampOf(event: AguiEvent): number | undefined {
  return synthesizedAt.get(event);
}
