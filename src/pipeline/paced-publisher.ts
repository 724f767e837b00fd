import type { SchedulerLike, Unsubscribable } from "rxjs";

/**
 * D-PACE: publishes at most one value per `pace` milliseconds of `scheduler` time. The first value
 * after a quiet window is published at once (leading edge) and opens a window; values offered while
 * it is open are coalesced, and the latest is published when it ends (trailing edge), which opens the
 * next window. `flush()` publishes the pending value now (before RUN_FINISHED, RUN_ERROR, completion
 * or an error reach `events$`, and before `exportState()` returns), so nothing published is lost
 * or comes after the end.
 *
 * What is offered is a state, and `publish` builds what is shown from it: an offered state that a
 * later one replaces before the window ends is never built (no immutable history per delta).
 */
export class PacedPublisher<S> {
  private pending: { readonly state: S } | undefined;
  private window: Unsubscribable | undefined;

  constructor(
    private readonly pace: number,
    private readonly scheduler: SchedulerLike,
    private readonly publish: (state: S) => void,
  ) {}

  /** A new state: published now when no window is open, else kept (replacing any kept one) for the window's end. */
  offer(state: S): void {
    if (this.window !== undefined) {
      this.pending = { state };
      return;
    }
    // The window opens first: a subscriber that feeds the source from inside `publish` is coalesced.
    this.open();
    this.publish(state);
  }

  /** Publishes the kept state now, if any (the window stays open). */
  flush(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    this.publish(pending.state);
  }

  /** Nothing more will be offered: the kept state is published and no window stays scheduled. */
  close(): void {
    this.flush();
    this.dispose();
  }

  /** Drops the kept state and the window (teardown: nobody listens any more). */
  dispose(): void {
    this.pending = undefined;
    this.window?.unsubscribe();
    this.window = undefined;
  }

  private open(): void {
    this.window = this.scheduler.schedule(() => {
      this.window = undefined;
      const pending = this.pending;
      if (pending === undefined) return;
      this.pending = undefined;
      this.open();
      this.publish(pending.state);
    }, this.pace);
  }
}

/** The checked `historyPace` option: undefined (unpaced) or a finite number of milliseconds ≥ 0. */
export function historyPaceOf(pace: unknown, where: string): number | undefined {
  if (pace === undefined) return undefined;
  if (typeof pace !== "number" || !Number.isFinite(pace) || pace < 0) {
    throw new TypeError(`agui-reasoning: ${where}: \`historyPace\` must be a number of milliseconds ≥ 0`);
  }
  return pace;
}
