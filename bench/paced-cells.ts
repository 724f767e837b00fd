import { asyncScheduler, from, map, type Observable } from "rxjs";
import type { ReasoningHistory, reasoningPipeline } from "../src";

/** The cells `bench/paced.ts` and `bench/ab-driver.ts` time: the floor and the facade, paced or not. */

const identity = <T>(x: T): T => x;
const PRODUCER = "bench://agent";

/** Subscribes to `source$` until it completes; the number of values. */
export function drain<T>(source$: Observable<T>, onValue?: (value: T) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let count = 0;
    source$.subscribe({
      next: (v) => {
        count++;
        onValue?.(v);
      },
      error: reject,
      complete: () => resolve(count),
    });
  });
}

/** The floor: the events through `from` + 5×`map(identity)`. */
export const floor = (events: Iterable<unknown>): Promise<number> =>
  drain(from(events).pipe(map(identity), map(identity), map(identity), map(identity), map(identity)));

/**
 * `pipeline` (the facade of this tree, or of another one's bundle) over `events`, paced when
 * `historyPace` is given (asyncScheduler); `probe` is called every 1,024 events.
 */
export async function facade(
  pipeline: typeof reasoningPipeline,
  events: Iterable<unknown>,
  historyPace: number | undefined,
  probe?: () => void,
): Promise<{ emitted: number; histories: number; last: ReasoningHistory }> {
  const p = pipeline(from(events), {
    producer: PRODUCER,
    onWarning: () => {},
    ...(historyPace === undefined ? {} : { historyPace, scheduler: asyncScheduler }),
  });
  let last: ReasoningHistory = p.history;
  let histories = 0;
  p.history$.subscribe((h) => {
    histories++;
    last = h;
  });
  let n = 0;
  const emitted = await drain(p.events$, probe === undefined ? undefined : () => (++n & 1023) === 0 && probe());
  return { emitted, histories, last };
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
