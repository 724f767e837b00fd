import { Observable, type SchedulerLike } from "rxjs";
import type { HistoryState } from "../history/conversation";
import type { ReasoningHistory } from "../history/types";
import { PacedPublisher } from "./paced-publisher";

/** Marks the end of a run in a stream of history states: the pending history is published (D-PACE). */
export const FLUSH: unique symbol = Symbol("agui-reasoning.flush");

/**
 * The paced `deriveHistory` (D-PACE): the history stage's states in, histories out. The first state
 * (the initial history, emitted on subscribe) is published at once; the others go through a
 * `PacedPublisher`, which builds a state's history only when it publishes it. `FLUSH`, completion and
 * an error publish what is pending first.
 */
export function pacedHistories(
  states: Observable<HistoryState | typeof FLUSH>,
  pace: number,
  scheduler: SchedulerLike,
): Observable<ReasoningHistory> {
  return new Observable<ReasoningHistory>((subscriber) => {
    let published: ReasoningHistory | undefined;
    const publish = (state: HistoryState): void => {
      const history = state.history;
      if (history === published) return;
      published = history;
      subscriber.next(history);
    };
    const publisher = new PacedPublisher<HistoryState>(pace, scheduler, publish);
    let started = false;
    const subscription = states.subscribe({
      next(value) {
        if (value === FLUSH) publisher.flush();
        else if (started) publisher.offer(value);
        else {
          started = true;
          publish(value);
        }
      },
      error(error: unknown) {
        publisher.close();
        subscriber.error(error);
      },
      complete() {
        publisher.close();
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      publisher.dispose();
    };
  });
}
