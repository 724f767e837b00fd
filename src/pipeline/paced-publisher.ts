import { EventType } from "@ag-ui/core";
import { asyncScheduler, type SchedulerLike, type Unsubscribable } from "rxjs";
import { rawType } from "../core/json";

/**
 * D-PACE's cadence: at most one publication per `pace` ms of `scheduler` time — the first change
 * after a quiet window at once (leading edge), the changes within the window coalesced at its end
 * (trailing edge, opening the next). `flush()` publishes what is pending now (before a run's end,
 * before `exportState()`). It holds no value: `publish` reads what is current, so a change replaced
 * within the window is never built.
 */
export class PacedPublisher {
  #pending = false;
  #window: Unsubscribable | undefined;

  constructor(
    private readonly pace: number,
    private readonly scheduler: SchedulerLike,
    /** Publishes what is current; false when that was already published (nothing new went out). */
    private readonly publish: () => boolean,
  ) {}

  /** Something changed: published now when no window is open, else at the window's end. */
  changed(): void {
    if (this.#window !== undefined) {
      this.#pending = true;
      return;
    }
    // The window opens first: a subscriber that feeds the source from inside `publish` is coalesced.
    this.#open();
    this.#publishInWindow();
  }

  // Nothing new went out (and nothing came meanwhile): the quiet window goes on, none is open.
  #publishInWindow(): void {
    if (this.publish() || this.#pending) return;
    this.dispose();
  }

  /** Publishes the pending change now, if any (the window stays open). */
  flush(): void {
    if (!this.#pending) return;
    this.#pending = false;
    this.publish();
  }

  /** Nothing pending is kept and no window stays scheduled (the end, after a flush; or teardown). */
  dispose(): void {
    this.#pending = false;
    this.#window?.unsubscribe();
    this.#window = undefined;
  }

  #open(): void {
    let opening = true;
    let endedAtOnce = false;
    const window = this.scheduler.schedule(() => {
      // A scheduler that runs the work as it is scheduled (`queueScheduler`, pace 0): the window
      // ended before it opened, and nothing is pending yet.
      if (opening) {
        endedAtOnce = true;
        return;
      }
      this.#window = undefined;
      if (!this.#pending) return;
      this.#pending = false;
      this.#open();
      this.#publishInWindow();
    }, this.pace);
    opening = false;
    if (!endedAtOnce) this.#window = window;
  }
}

/** The pacing options, checked: `undefined` (unpaced) or a pace ≥ 0 ms and a scheduler that can schedule. */
export function pacingOf(
  options: { readonly historyPace?: number; readonly scheduler?: SchedulerLike } | undefined,
  where: string,
): { readonly pace: number; readonly scheduler: SchedulerLike } | undefined {
  const pace: unknown = options?.historyPace;
  if (pace === undefined) return undefined;
  if (typeof pace !== "number" || !Number.isFinite(pace) || pace < 0) {
    throw new TypeError(`agui-reasoning: ${where}: \`historyPace\` must be a finite number of milliseconds ≥ 0`);
  }
  const scheduler: unknown = options?.scheduler ?? asyncScheduler;
  if (
    typeof scheduler !== "object" ||
    scheduler === null ||
    typeof (scheduler as SchedulerLike).schedule !== "function"
  ) {
    throw new TypeError(`agui-reasoning: ${where}: \`scheduler\` must be an RxJS SchedulerLike (with \`schedule()\`)`);
  }
  return { pace, scheduler: scheduler as SchedulerLike };
}

/** `event` ends a run (RUN_FINISHED, RUN_ERROR): the pending history goes out before it (D-PACE). */
export function endsRun(event: unknown): boolean {
  const type = rawType(event);
  return type === EventType.RUN_FINISHED || type === EventType.RUN_ERROR;
}
