/**
 * Re-subscribing after teardown (issue 12, finding 6). Before the fix, once every view of a pipeline
 * had unsubscribed (which stops its source), a new subscriber of `events$`, `history$` or
 * `warnings$` never got `complete` or `error`. A pipeline runs its source once; a later subscriber
 * now gets a defined end: `events$` an error saying the pipeline already ran, `history$` the last
 * history and completion, `warnings$` completion. The source is not subscribed again.
 */
import { Observable, Subject } from "rxjs";
import { ALREADY_RAN, reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import type { ReasoningHistory } from "../../src/history/types";
import { ev } from "../../src/testing/builders";

/** What a subscriber saw, synchronously. */
function observe<T>(source: Observable<T>): { values: T[]; end: "complete" | { error: unknown } | undefined } {
  const seen: { values: T[]; end: "complete" | { error: unknown } | undefined } = { values: [], end: undefined };
  source.subscribe({
    next: (v) => seen.values.push(v),
    error: (error: unknown) => (seen.end = { error }),
    complete: () => (seen.end = "complete"),
  });
  return seen;
}

function tornDown(): {
  pipeline: ReturnType<typeof reasoningPipeline>;
  subscriptions: () => number;
  last: ReasoningHistory;
} {
  const subject = new Subject<unknown>();
  let subscriptions = 0;
  const source = new Observable<unknown>((subscriber) => {
    subscriptions++;
    return subject.subscribe(subscriber);
  });
  const pipeline = reasoningPipeline(source, { onWarning: () => {} });
  let failure: unknown;
  const views = [
    pipeline.history$.subscribe(),
    pipeline.warnings$.subscribe(),
    pipeline.events$.subscribe({ error: (e: unknown) => (failure = e) }),
  ];
  subject.next(ev.runStarted());
  subject.next(ev.reasoningMessageStart("m1"));
  subject.next(ev.reasoningMessageContent("m1", "partial"));
  expect(failure).toBeUndefined();
  const last = pipeline.history;
  for (const view of views) view.unsubscribe();
  return { pipeline, subscriptions: () => subscriptions, last };
}

describe("reasoningPipeline: a subscriber after teardown gets a defined end", () => {
  it("R-TRANS-1: events$ errors saying the pipeline already ran; the source is not subscribed again", () => {
    const { pipeline, subscriptions } = tornDown();
    const seen = observe(pipeline.events$);
    expect(seen.values).toEqual([]);
    expect(seen.end).toEqual({ error: new Error(ALREADY_RAN) });
    expect(subscriptions()).toBe(1);
    // connect() does not restart it either.
    pipeline.connect().unsubscribe();
    expect(subscriptions()).toBe(1);
  });

  it("R-TRANS-1: history$ replays the last history and completes; warnings$ completes", () => {
    const { pipeline, last } = tornDown();
    const history = observe(pipeline.history$);
    expect(history.values).toEqual([last]);
    expect(history.values[0]!.messages).toEqual([{ id: "m1", role: "reasoning", content: "partial" }]);
    expect(history.end).toBe("complete");
    expect(observe(pipeline.warnings$)).toEqual({ values: [], end: "complete" });
  });

  it("R-TRANS-1: a pipeline whose views unsubscribed before it started still starts on events$", () => {
    const pipeline = reasoningPipeline(
      new Observable<unknown>((s) => {
        s.next(ev.runStarted());
        s.next(ev.runFinished());
        s.complete();
      }),
      { onWarning: () => {} },
    );
    pipeline.history$.subscribe().unsubscribe();
    const seen = observe(pipeline.events$);
    expect(seen.values.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(seen.end).toBe("complete");
  });
});
