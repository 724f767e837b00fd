import { from, map, queueScheduler, Subject, type Observable, type OperatorFunction } from "rxjs";
import type { TestScheduler } from "rxjs/testing";
import {
  deriveHistory,
  reasoningMiddleware,
  enforceSchema,
  expandChunks,
  reasoningPipeline,
  upcastThinking,
  verifyDiscipline,
  type ReasoningHistory,
} from "../src";
import { ev, historyOf, msg } from "../src/testing/builders";
import { createTestScheduler } from "../src/testing/marbles";
import { Conversation } from "../src/history/conversation";
import { TEST_PRODUCER } from "../src/testing/run-pipeline";

const quiet = { producer: TEST_PRODUCER, onWarning: () => {} };
const open = { kind: "message" as const, id: "m1", reason: "open" as const };

/** One reasoning message streamed in virtual time: START at frame 1, deltas at 2, 3, 4 and 8, END at 9. */
const source = {
  R: ev.runStarted(),
  s: ev.reasoningMessageStart("m1"),
  a: ev.reasoningMessageContent("m1", "a"),
  b: ev.reasoningMessageContent("m1", "b"),
  c: ev.reasoningMessageContent("m1", "c"),
  d: ev.reasoningMessageContent("m1", "d"),
  e: ev.reasoningMessageEnd("m1"),
  F: ev.runFinished(),
};
const SOURCE = "Rsabc---deF|";
// Durations in virtual time (D-DURATION: the scheduler's now(), observed): m1 started at 1, ended at 9.
const started = { kind: "message" as const, id: "m1", startedAt: 1, startObserved: true };
const histories = {
  i: historyOf(),
  s: historyOf([msg.reasoning("m1", "")], { incomplete: [open], durations: [started] }),
  c: historyOf([msg.reasoning("m1", "abc")], { incomplete: [open], durations: [started] }),
  e: historyOf([msg.reasoning("m1", "abcd")], {
    durations: [{ ...started, endedAt: 9, endObserved: true }],
  }),
};

describe("D-PACE: a paced history (virtual time)", () => {
  it("D-PACE: leading edge, coalesced trailing edge, flushed before RUN_FINISHED; events$ never delayed", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const p = reasoningPipeline(cold(SOURCE, source), { ...quiet, historyPace: 5, scheduler });
      // START is published at once (frame 1) and opens a 5 ms window; a, b, c are one publication at its
      // end (6); d and e wait in the next window, and RUN_FINISHED (10) publishes them before it is emitted.
      expectObservable(p.history$).toBe("is----c---e|", histories);
      expectObservable(p.events$).toBe(SOURCE, source);
    });
  });

  it("D-PACE: the pending history reaches history$ before RUN_FINISHED reaches events$ (same frame, in order)", () => {
    const log = orderOf((scheduler, cold) =>
      reasoningPipeline(cold(SOURCE, source), { ...quiet, historyPace: 5, scheduler }),
    );
    const finished = log.indexOf("event RUN_FINISHED");
    expect(log.slice(finished - 1, finished + 1)).toEqual(["history abcd", "event RUN_FINISHED"]);
  });

  it("D-PACE: before RUN_ERROR too, and the final history is the unpaced one", () => {
    const failing = { ...source, F: ev.runError("boom") };
    const log = orderOf((scheduler, cold) =>
      reasoningPipeline(cold(SOURCE, failing), { ...quiet, historyPace: 5, scheduler }),
    );
    const errored = log.indexOf("event RUN_ERROR");
    expect(log[errored - 1]).toBe("history abcd");
    // The same run unpaced, in the same virtual time: the same last history, durations included.
    const paced = lastHistory((scheduler, cold) =>
      reasoningPipeline(cold(SOURCE, failing), { ...quiet, historyPace: 5, scheduler }),
    );
    const unpaced = lastHistory((scheduler, cold) => reasoningPipeline(cold(SOURCE, failing), { ...quiet, scheduler }));
    expect(paced).toEqual(unpaced);
    expect(paced.incomplete).toEqual([]);
  });

  it("D-PACE: before completion and before an error of the source", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      // Cut after d: the source completes at 9 (truncation: RUN_TRUNCATED), the pending "abcd" first.
      const cut = reasoningPipeline(cold("Rsabc---d|", source), { ...quiet, historyPace: 5, scheduler });
      expectObservable(cut.history$).toBe("is----c--(t|)", {
        ...histories,
        t: historyOf([msg.reasoning("m1", "abcd")], {
          incomplete: [{ ...open, reason: "truncated" }],
          durations: [started],
        }),
      });
      cut.connect();
      const failed = reasoningPipeline(cold("Rsabc---d#", source, new Error("network")), {
        ...quiet,
        historyPace: 5,
        scheduler,
      });
      failed.connect();
      expectObservable(failed.history$).toBe("is----c--(d|)", {
        ...histories,
        d: historyOf([msg.reasoning("m1", "abcd")], { incomplete: [open], durations: [started] }),
      });
    });
  });

  it("D-PACE: exportState() publishes the pending history before it returns", () => {
    const scheduler = createTestScheduler();
    scheduler.run(() => {
      const input = new Subject<unknown>();
      const p = reasoningPipeline(input, { ...quiet, historyPace: 1000, scheduler });
      const seen: ReasoningHistory[] = [];
      p.history$.subscribe((h) => seen.push(h));
      p.connect();
      [source.R, source.s, source.a, source.b].forEach((e) => input.next(e));
      // START was published at once; a and b wait for the window's end.
      expect(seen.map(text)).toEqual(["", ""]);
      const snapshot = p.exportState();
      expect(seen.map(text)).toEqual(["", "", "ab"]);
      expect(p.history).toBe(seen[2]);
      expect(snapshot.index).toBe(4);
    });
  });

  it("D-PACE: a history$ subscriber may call exportState() on every history, also the one flushed before RUN_FINISHED or RUN_ERROR, as unpaced", () => {
    for (const end of [source.F, ev.runError("boom")]) {
      const scheduler = createTestScheduler();
      scheduler.run(() => {
        const input = new Subject<unknown>();
        const p = reasoningPipeline(input, { ...quiet, historyPace: 1000, scheduler });
        const exported: string[] = [];
        const order: string[] = [];
        p.history$.subscribe(() => {
          exported.push(JSON.stringify(p.exportState()));
          order.push("history");
        });
        p.events$.subscribe((e) => order.push(e.type));
        [source.R, source.s, source.a, source.b, source.e, end].forEach((e) => input.next(e));
        // The first history, START (leading edge), then a, b, END and the run's end, flushed before it is emitted.
        expect(order.slice(-2)).toEqual(["history", end.type]);
        const indexes = exported.map((json) => (JSON.parse(json) as { index: number }).index);
        expect(indexes).toEqual([0, 2, 6]);
        // The flushed publication's snapshot is the state after the run's end, as asked between events.
        expect(exported[2]).toBe(JSON.stringify(p.exportState()));
      });
    }
  });

  it("D-PACE: without historyPace every change is published, as before", () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const p = reasoningPipeline(cold(SOURCE, source), { ...quiet, scheduler });
      p.connect();
      const all = {
        ...histories,
        a: historyOf([msg.reasoning("m1", "a")], { incomplete: [open], durations: [started] }),
        b: historyOf([msg.reasoning("m1", "ab")], { incomplete: [open], durations: [started] }),
        d: historyOf([msg.reasoning("m1", "abcd")], { incomplete: [open], durations: [started] }),
      };
      expectObservable(p.history$).toBe("isabc---de-|", all);
    });
  });

  it("D-PACE: deriveHistory({ historyPace }) paces alike, fused or not, and flushes at RUN_FINISHED and completion", () => {
    for (const fused of [true, false]) {
      const scheduler = createTestScheduler();
      scheduler.run(({ cold, expectObservable }) => {
        const ops = [
          upcastThinking(quiet),
          enforceSchema(quiet),
          expandChunks(quiet),
          verifyDiscipline(quiet),
          deriveHistory({ ...quiet, historyPace: 5, scheduler }),
        ] as OperatorFunction<unknown, unknown>[];
        // Fused (adjacent) or each in a subscriber of its own (a map between every two).
        let derived: Observable<unknown> = cold(SOURCE, source);
        for (const op of ops) derived = (fused ? derived : derived.pipe(map((x) => x))).pipe(op);
        expectObservable(derived).toBe("is----c---e|", histories);
      });
    }
  });

  it("D-PACE: the middleware's pipelines are paced (fewer histories, the same last one)", async () => {
    const events = [source.R, source.s, source.a, source.b, source.c, source.d, source.e, source.F];
    const { mockAgent } = await import("../src/testing/mock-agent");
    const count = async (historyPace: number | undefined) => {
      const agent = mockAgent([events]);
      const seen: ReasoningHistory[] = [];
      agent.use(reasoningMiddleware({ ...quiet, historyPace, onHistory: (h) => seen.push(h) }));
      await agent.runAgent();
      return seen;
    };
    const unpaced = await count(undefined);
    const paced = await count(10_000);
    // A synchronous run: START at once, everything else flushed before RUN_FINISHED.
    expect(paced.map(text)).toEqual(["", "", "abcd"]);
    expect(unpaced.length).toBeGreaterThan(paced.length);
    expect({ ...paced[paced.length - 1]!, durations: [] }).toEqual({ ...unpaced[unpaced.length - 1]!, durations: [] });
  });

  it("D-PACE: paced, nothing builds a history version per event: a lane-taken delta reaches the conversation, and a history is built, only when one is published", () => {
    const deltas = Array.from({ length: 200 }, (_, i) => ev.reasoningMessageContent("m1", `${i} `));
    const events = [source.R, source.s, ...deltas, source.e, source.F];
    const versions = jest.spyOn(Conversation.prototype, "replaceAt");
    const builds = jest.spyOn(Conversation.prototype, "history", "get");
    const counted = (run: () => ReasoningHistory | undefined) => {
      versions.mockClear();
      builds.mockClear();
      const last = run();
      return { versions: versions.mock.calls.length, builds: builds.mock.calls.length, last };
    };
    const viaFacade = (historyPace?: number) =>
      counted(() => {
        const p = reasoningPipeline(from(events), { ...quiet, historyPace });
        // A UI listening (unobserved, the facade builds no history at all: issue 22).
        let last: ReasoningHistory | undefined;
        p.history$.subscribe((h) => (last = h));
        p.connect();
        return last;
      });
    const viaOperators = (historyPace?: number) =>
      counted(() => {
        let last: ReasoningHistory | undefined;
        from(events)
          .pipe(
            upcastThinking(quiet),
            enforceSchema(quiet),
            expandChunks(quiet),
            verifyDiscipline(quiet),
            deriveHistory({ ...quiet, historyPace }),
          )
          .subscribe((h) => (last = h));
        return last;
      });
    try {
      for (const via of [viaFacade, viaOperators]) {
        const unpaced = via(undefined);
        const paced = via(60_000);
        // Unpaced: a version and a history per delta; paced: START (leading edge) and the flush at RUN_FINISHED.
        expect(unpaced.versions).toBeGreaterThanOrEqual(deltas.length);
        expect(unpaced.builds).toBeGreaterThanOrEqual(deltas.length);
        expect(paced.versions).toBeLessThanOrEqual(3);
        expect(paced.builds).toBeLessThanOrEqual(6);
        expect({ ...paced.last, durations: [] }).toEqual({ ...unpaced.last, durations: [] });
      }
    } finally {
      versions.mockRestore();
      builds.mockRestore();
    }
  });

  it("D-PACE: a window that ends as it opens (queueScheduler, pace 0) leaves none open: every change is published", () => {
    const events = [source.R, source.s, source.a, source.b, source.c, source.e, source.F];
    const texts = (historyPace?: number): string[] => {
      const seen: string[] = [];
      const p = reasoningPipeline(from(events), { ...quiet, historyPace, scheduler: queueScheduler });
      p.history$.subscribe((h) => seen.push(text(h)));
      p.connect();
      return seen;
    };
    // The initial history, START, a, b, c, END (the message no longer open).
    expect(texts(0)).toEqual(["", "", "a", "ab", "abc", "abc"]);
    expect(texts(0)).toEqual(texts(undefined));
  });

  it("D-PACE: a bad historyPace is a TypeError naming the option", () => {
    expect(() => reasoningPipeline(from([]), { historyPace: -1 })).toThrow(/historyPace/);
    expect(() => deriveHistory({ historyPace: Number.NaN })).toThrow(/historyPace/);
    expect(() => reasoningMiddleware({ producer: TEST_PRODUCER, historyPace: Infinity })).toThrow(/historyPace/);
    expect(() => reasoningPipeline(from([]), { historyPace: 16, scheduler: { now: () => 0 } as never })).toThrow(
      /scheduler/,
    );
  });
});

function text(h: ReasoningHistory): string {
  const m = h.messages.find((x) => x.id === "m1");
  return m === undefined ? "" : (m.content as string);
}

type Build = (
  scheduler: TestScheduler,
  cold: (marbles: string, values: Record<string, unknown>) => Observable<unknown>,
) => ReturnType<typeof reasoningPipeline>;

/** What reaches history$ and events$, in order, over the whole run. */
function orderOf(build: Build): string[] {
  const log: string[] = [];
  const scheduler = createTestScheduler();
  scheduler.run(({ cold, flush }) => {
    const p = build(scheduler, cold);
    p.history$.subscribe((h) => log.push(`history ${text(h)}`));
    p.events$.subscribe({ next: (e) => log.push(`event ${e.type}`), error: () => {} });
    flush();
  });
  return log;
}

function lastHistory(build: Build): ReasoningHistory {
  let last: ReasoningHistory | undefined;
  const scheduler = createTestScheduler();
  scheduler.run(({ cold, flush }) => {
    const p = build(scheduler, cold);
    p.history$.subscribe((h) => (last = h));
    p.events$.subscribe({ error: () => {} });
    flush();
  });
  return last!;
}
