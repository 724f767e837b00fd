import type { SchedulerLike } from "rxjs";
import type { ChainRunner } from "../core/chain-runner";
import type { Conversation, HistoryState } from "../history/conversation";
import { PacedPublisher } from "./paced-publisher";

/**
 * The paced publication of the history a chain's history link holds (D-PACE), the same for the
 * facade's `history$` and for `deriveHistory` (D-PATHS). After each source event `changed()` tells
 * the cadence when the history state moved (a new state, or text a deferred delta lane holds); a
 * publication settles the lanes' text into the conversation and builds the history then, so no
 * history, and no conversation version per lane-taken delta, is made between publications. Nor per
 * event: the chain threads the history link's state linearly, so between publications its steps
 * edit the conversation in place (src/history/epoch.ts); a publication seals the version it hands
 * out, and the next edit starts a new one — which is also how `changed()` tells a change by identity.
 */
export class PacedHistory {
  readonly #runner: () => ChainRunner;
  readonly #at: number;
  readonly #emit: (state: HistoryState) => boolean;
  readonly #cadence: PacedPublisher;
  // The state the cadence last heard of, and the one last published.
  #offered: unknown;
  #published: HistoryState;

  /**
   * `runner`: the chain (read when publishing), `at`: the history link's position, `emit`: where a
   * publication goes (the state: its history is built there, when someone reads it; false when
   * that history was the one already out).
   */
  constructor(
    runner: () => ChainRunner,
    at: number,
    initial: HistoryState,
    pacing: { readonly pace: number; readonly scheduler: SchedulerLike },
    emit: (state: HistoryState) => boolean,
  ) {
    this.#runner = runner;
    this.#at = at;
    this.#emit = emit;
    this.#offered = initial;
    this.#published = initial;
    (initial as Conversation).editInPlace();
    this.#cadence = new PacedPublisher(pacing.pace, pacing.scheduler, () => this.#publish());
  }

  /** After a source event: the cadence hears of a change, if there was one. */
  changed(): void {
    const runner = this.#runner();
    const state = runner.states[this.#at];
    if (state === this.#offered && !runner.unsettled) return;
    this.#offered = state;
    this.#cadence.changed();
  }

  /** The pending history published now (a run's end, `exportState()`, the end of the source). */
  flush(): void {
    this.changed();
    this.#cadence.flush();
  }

  /** The end: what is pending is published, and no window stays scheduled. */
  close(): void {
    this.flush();
    this.#cadence.dispose();
  }

  /** Teardown (nobody listens any more): no window stays scheduled. */
  dispose(): void {
    this.#cadence.dispose();
  }

  #publish(): boolean {
    const runner = this.#runner();
    // Also inside a source event (a scheduler that runs its work synchronously): the history as the
    // last step left it.
    runner.settle();
    const state = runner.states[this.#at] as Conversation;
    state.seal();
    this.#offered = state;
    // A new state is a new history (a step returns the same state when nothing changed).
    if (state === this.#published) return false;
    this.#published = state;
    return this.#emit(state);
  }
}
