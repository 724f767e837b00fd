/**
 * Sources and consumers that misbehave (issue 6, "Hostile and unusual input"): a source that errors
 * mid-run, a consumer that unsubscribes inside `next`, an endless synchronous source. The source's
 * own error passes through unchanged; after an unsubscribe nothing more is emitted and the source is
 * torn down exactly once — and stops at once, even when it emits synchronously.
 */
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  upcastThinking,
  verifyDiscipline,
} from "../../src/pipeline/operators";
import { concat, from, Observable, of, Subject, Subscriber, take, throwError, type OperatorFunction } from "rxjs";
import type { AguiEvent } from "../../src/core/types";
import type { ReasoningHistory } from "../../src/history/types";
import { reasoningPipeline } from "../../src/pipeline/reasoning-pipeline";
import { ev } from "../../src/testing/builders";
import { SECRETS } from "./support/streams";

/** A synchronous source over `events` that records how far it got and how often it was torn down. */
function countingSource(events: readonly unknown[]): {
  source: Observable<unknown>;
  emitted: () => number;
  teardowns: () => number;
} {
  let emitted = 0;
  let teardowns = 0;
  const source = new Observable<unknown>((subscriber) => {
    for (const event of events) {
      if (subscriber.closed) break;
      emitted++;
      subscriber.next(event);
    }
    if (!subscriber.closed) subscriber.complete();
    return () => teardowns++;
  });
  return { source, emitted: () => emitted, teardowns: () => teardowns };
}

/** An endless synchronous stream of valid runs: a consumer that stops must stop it. */
function endless(): { source: Observable<unknown>; pulled: () => number } {
  let pulled = 0;
  function* events(): Generator<unknown> {
    for (let run = 0; ; run++) {
      pulled++;
      yield ev.runStarted(`r${run}`);
      pulled++;
      yield ev.runFinished(`r${run}`);
      if (pulled > 1_000_000) throw new Error("the endless source was not stopped");
    }
  }
  return { source: from(events()), pulled: () => pulled };
}

const run = [
  ev.runStarted(),
  ev.reasoningMessageStart("m1"),
  ev.reasoningMessageContent("m1", SECRETS.thought),
  ev.reasoningChunk("m2", SECRETS.answer),
  ev.reasoningMessageEnd("m1"),
  ev.runFinished(),
];

describe("a source that errors mid-run", () => {
  it.each([
    ["an Error", new Error("connection reset")],
    ["a non-Error value", { reason: "socket closed" }],
  ])(
    "R-TRANS-3 #99: %s passes through events$ unchanged; history keeps what was delivered; history$ and warnings$ complete",
    (_label, failure) => {
      const boom = new Subject<unknown>();
      const pipeline = reasoningPipeline(concat(from(run.slice(0, 4)), boom), { producer: "p", onWarning: () => {} });
      const seen: { events: AguiEvent[]; error?: unknown; historyDone: boolean; warningsDone: boolean } = {
        events: [],
        historyDone: false,
        warningsDone: false,
      };
      pipeline.history$.subscribe({ complete: () => (seen.historyDone = true) });
      pipeline.warnings$.subscribe({ complete: () => (seen.warningsDone = true) });
      pipeline.events$.subscribe({ next: (e) => seen.events.push(e), error: (e: unknown) => (seen.error = e) });
      expect(seen.error).toBeUndefined();
      boom.error(failure);
      expect(seen.error).toBe(failure);
      expect([seen.historyDone, seen.warningsDone]).toEqual([true, true]);
      expect(seen.events.map((e) => e.type)).toEqual([
        "RUN_STARTED",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
      ]);
      expect(pipeline.history.messages).toEqual([
        { id: "m1", role: "reasoning", content: SECRETS.thought },
        { id: "m2", role: "reasoning", content: SECRETS.answer },
      ]);
    },
  );

  const operators: readonly [string, () => OperatorFunction<unknown, unknown>][] = [
    ["upcastThinking", () => upcastThinking()],
    ["enforceSchema", () => enforceSchema({ onWarning: () => {} })],
    ["expandChunks", () => expandChunks() as OperatorFunction<unknown, unknown>],
    ["verifyDiscipline", () => verifyDiscipline() as OperatorFunction<unknown, unknown>],
    ["deriveHistory", () => deriveHistory() as unknown as OperatorFunction<unknown, unknown>],
  ];

  it.each(operators)(
    "R-TRANS-5: %s passes the source's own error through unchanged, after what it emitted",
    (_name, operator) => {
      const failure = new Error("upstream failed");
      const out: unknown[] = [];
      let error: unknown;
      concat(
        of(ev.runStarted(), ev.reasoningMessageStart("m1")),
        throwError(() => failure),
      )
        .pipe(operator())
        .subscribe({ next: (e) => out.push(e), error: (e: unknown) => (error = e) });
      expect(error).toBe(failure);
      expect(out.length).toBeGreaterThan(0);
    },
  );

  it("R-TRANS-3: deriveHistory emits the history of what arrived before the source failed", () => {
    const histories: ReasoningHistory[] = [];
    concat(
      of(ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageContent("m1", SECRETS.thought)),
      throwError(() => new Error("x")),
    )
      .pipe(deriveHistory())
      .subscribe({ next: (h) => histories.push(h), error: () => {} });
    expect(histories[histories.length - 1]!.messages).toEqual([
      { id: "m1", role: "reasoning", content: SECRETS.thought },
    ]);
  });
});

describe("a source that breaks the Observable contract", () => {
  it("R-TRANS-5: a plain Subscribable that emits, errors and completes again after completing is heard once, then ignored", () => {
    let teardowns = 0;
    const rogue = {
      subscribe(observer: { next?: (v: unknown) => void; error?: (e: unknown) => void; complete?: () => void }) {
        observer.next?.(ev.runStarted());
        observer.next?.(ev.runFinished());
        observer.complete?.();
        observer.next?.(ev.reasoningMessageContent("ghost", SECRETS.thought));
        observer.error?.(new Error("after the end"));
        observer.complete?.();
        return {
          unsubscribe: () => {
            teardowns++;
          },
        };
      },
    };
    const seen: string[] = [];
    reasoningPipeline(rogue, { producer: "p" }).events$.subscribe({
      next: (e) => seen.push(e.type),
      error: () => seen.push("error"),
      complete: () => seen.push("complete"),
    });
    expect(seen).toEqual(["RUN_STARTED", "RUN_FINISHED", "complete"]);
    expect(teardowns).toBe(1);
  });
});

describe("a consumer that unsubscribes inside next", () => {
  it("R-TRANS-5: after every view unsubscribes mid-event, nothing more is emitted and the synchronous source stops, torn down once", () => {
    const { source, emitted, teardowns } = countingSource(run);
    const pipeline = reasoningPipeline(source, { producer: "p", onWarning: () => {} });
    const late: string[] = [];
    let stopped = false;
    const histories = pipeline.history$.subscribe(() => stopped && late.push("history"));
    const warnings = pipeline.warnings$.subscribe(() => stopped && late.push("warning"));
    const events: AguiEvent[] = [];
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a Subscriber as consumer, as RxJS operators pass one
    const consumer: Subscriber<AguiEvent> = new Subscriber({
      next(e: AguiEvent) {
        if (stopped) late.push(e.type);
        events.push(e);
        // The chunk at #3 expands to START + CONTENT: stop between the two.
        if (e.type === "REASONING_MESSAGE_START" && e.messageId === "m2") {
          stopped = true;
          histories.unsubscribe();
          warnings.unsubscribe();
          consumer.unsubscribe();
        }
      },
      error: () => late.push("error"),
      complete: () => late.push("complete"),
    });
    pipeline.events$.subscribe(consumer);
    expect(late).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_START",
    ]);
    expect({ emitted: emitted(), teardowns: teardowns() }).toEqual({ emitted: 4, teardowns: 1 });
  });

  it("R-TRANS-5: an asynchronous source is torn down once when the last view unsubscribes mid-event", () => {
    let teardowns = 0;
    const subject = new Subject<unknown>();
    const source = new Observable<unknown>((subscriber) => {
      const inner = subject.subscribe(subscriber);
      return () => {
        teardowns++;
        inner.unsubscribe();
      };
    });
    const pipeline = reasoningPipeline(source, { producer: "p" });
    const seen: string[] = [];
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a Subscriber as consumer, as RxJS operators pass one
    const consumer: Subscriber<AguiEvent> = new Subscriber({
      next(e: AguiEvent) {
        seen.push(e.type);
        if (e.type === "REASONING_MESSAGE_START") consumer.unsubscribe();
      },
      error: () => seen.push("error"),
      complete: () => seen.push("complete"),
    });
    pipeline.events$.subscribe(consumer);
    for (const event of run) subject.next(event);
    expect(seen).toEqual(["RUN_STARTED", "REASONING_MESSAGE_START"]);
    expect(teardowns).toBe(1);
    expect(subject.observed).toBe(false);
  });

  it("R-TRANS-5: expandChunks alone emits nothing after an unsubscribe between two outputs of one chunk, and stops its source", () => {
    const { source, emitted, teardowns } = countingSource(run);
    const seen: string[] = [];
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a Subscriber as consumer, as RxJS operators pass one
    const consumer: Subscriber<AguiEvent> = new Subscriber({
      next(e: AguiEvent) {
        seen.push(`${e.type}:${String(e.messageId)}`);
        if (e.messageId === "m2") consumer.unsubscribe();
      },
      error: () => seen.push("error"),
      complete: () => seen.push("complete"),
    });
    source.pipe(expandChunks() as OperatorFunction<unknown, AguiEvent>).subscribe(consumer);
    expect(seen).toEqual([
      "RUN_STARTED:undefined",
      "REASONING_MESSAGE_START:m1",
      "REASONING_MESSAGE_CONTENT:m1",
      "REASONING_MESSAGE_START:m2",
    ]);
    expect({ emitted: emitted(), teardowns: teardowns() }).toEqual({ emitted: 4, teardowns: 1 });
  });
});

describe("an endless synchronous source", () => {
  it("R-TRANS-5: events$.pipe(take(3)) completes and the source is read no further than needed", () => {
    const { source, pulled } = endless();
    const seen: string[] = [];
    reasoningPipeline(source, { producer: "p" })
      .events$.pipe(take(3))
      .subscribe({
        next: (e) => seen.push(e.type),
        error: () => seen.push("error"),
        complete: () => seen.push("complete"),
      });
    expect(seen).toEqual(["RUN_STARTED", "RUN_FINISHED", "RUN_STARTED", "complete"]);
    expect(pulled()).toBe(3);
  });

  it("R-TRANS-5: the operator chain stops an endless source as soon as its consumer has enough", () => {
    const { source, pulled } = endless();
    const seen: string[] = [];
    const opts = { onWarning: () => {} };
    source
      .pipe(
        upcastThinking(opts),
        enforceSchema(opts),
        expandChunks(opts),
        verifyDiscipline(opts),
        take(4),
      )
      .subscribe({
        next: (e) => seen.push(e.type),
        error: () => seen.push("error"),
        complete: () => seen.push("complete"),
      });
    expect(seen).toEqual(["RUN_STARTED", "RUN_FINISHED", "RUN_STARTED", "RUN_FINISHED", "complete"]);
    expect(pulled()).toBe(4);
  });

  it("R-TRANS-5: a protocol error stops an endless source at the failing event", () => {
    let pulled = 0;
    function* events(): Generator<unknown> {
      pulled++;
      yield ev.runStarted();
      for (;;) {
        pulled++;
        yield ev.reasoningMessageContent("ghost", SECRETS.thought);
        if (pulled > 1_000_000) throw new Error("the endless source was not stopped");
      }
    }
    let code: unknown;
    reasoningPipeline(from(events()), { producer: "p" }).events$.subscribe({
      error: (e: unknown) => (code = (e as { code?: unknown }).code),
    });
    expect({ code, pulled }).toEqual({ code: "ORPHAN_CONTENT", pulled: 2 });
  });
});
