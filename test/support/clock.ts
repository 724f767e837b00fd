import { asyncScheduler, type SchedulerLike } from "rxjs";
import type { ReasoningHistory } from "../../src/history/types";

/**
 * A scheduler whose `now()` counts 0, 1, 2, … (D-DURATION's clock for events without a timestamp):
 * two paths that must agree get equal durations exactly when they read the clock at the same steps.
 * Work (D-PACE's windows) is scheduled on `scheduling`.
 */
export function countingClock(scheduling: SchedulerLike = asyncScheduler): SchedulerLike {
  let next = 0;
  return { now: () => next++, schedule: scheduling.schedule.bind(scheduling) };
}

/** A scheduler whose `now()` is always 0: durations equal however the run is cut and resumed (D-DURATION). */
export function fixedClock(): SchedulerLike {
  return { now: () => 0, schedule: asyncScheduler.schedule.bind(asyncScheduler) };
}

/**
 * `history` expected with any durations: for a test about something else (durations depend on the
 * clock; the D-DURATION tests pin them).
 */
export function anyDurations<T extends ReasoningHistory>(history: T): T {
  return { ...history, durations: expect.any(Array) };
}
