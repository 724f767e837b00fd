/**
 * A facade nobody subscribes `history$` of (the CLI's check, a consumer of `events$` alone) does not
 * build a history object per source event (issue 22: that was a third of `check`'s pipeline time);
 * `pipeline.history` and a late `history$` subscriber still see exactly what an observed pipeline
 * published after the last source event — also when read from inside an `events$` subscriber, in
 * the middle of the next source event (the history before it, not a half-updated one).
 */
import { Subject } from "rxjs";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import type { ReasoningHistory } from "../../src/history/types";
import { ev } from "../../src/testing/builders";
import { countingClock } from "../support/clock";

const EVENTS: unknown[] = [
  ev.runStarted(),
  ev.reasoningStart("s1"),
  ev.reasoningMessageStart("m1"),
  ev.reasoningMessageContent("m1", "one "),
  ev.reasoningMessageContent("m1", "two "),
  ev.reasoningMessageContent("m1", "three"),
  ev.reasoningMessageEnd("m1"),
  ev.reasoningEnd("s1"),
  ev.textStart("a1"),
  ev.textContent("a1", "answer"),
  ev.textEnd("a1"),
  ev.runFinished(),
];

describe("reasoningPipeline: history$ without a subscriber", () => {
  it("D-PATHS: pipeline.history, read between events and inside events$, is what an observed pipeline published", () => {
    const observedSource = new Subject<unknown>();
    const observed = reasoningPipeline(observedSource, { onWarning: () => {}, scheduler: countingClock() });
    let latest: ReasoningHistory | undefined;
    observed.history$.subscribe((h) => (latest = h));
    observed.events$.subscribe();

    const source = new Subject<unknown>();
    const unobserved = reasoningPipeline(source, { onWarning: () => {}, scheduler: countingClock() });
    // Read inside each delivered event: the history as published after the previous source event.
    const readInside: ReasoningHistory[] = [];
    unobserved.events$.subscribe(() => readInside.push(unobserved.history));

    // Not read between events: each read inside the next event is the first since the last one.
    const before: ReasoningHistory[] = [];
    for (const event of EVENTS) {
      before.push(structuredClone(latest!));
      observedSource.next(event);
      source.next(event);
    }
    // One delivered event per source event here: each read saw the history before its event.
    expect(readInside).toEqual(before);
    expect(readInside[5]!.messages).toEqual([{ id: "m1", role: "reasoning", content: "one two " }]);
    expect(unobserved.history).toEqual(latest);
    // Read twice, the same object (identity is what "changed" means to history$).
    expect(unobserved.history).toBe(unobserved.history);

    // A late history$ subscriber gets the latest history first, then what follows.
    const late: ReasoningHistory[] = [];
    unobserved.history$.subscribe((h) => late.push(h));
    expect(late).toEqual([latest]);
    expect(late[0]).toBe(unobserved.history);
    const next = [ev.runStarted("r2"), ev.runFinished("r2")];
    for (const event of next) {
      observedSource.next(event);
      source.next(event);
    }
    expect(late.at(-1)).toEqual(latest);
  });
});
