import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asyncScheduler, from, lastValueFrom } from "rxjs";
import {
  deriveHistory,
  enforceSchema,
  expandChunks,
  parseHistory,
  reasoningMiddleware,
  reasoningPipeline,
  serializeHistory,
  toRunInputMessages,
  upcastThinking,
  verifyDiscipline,
  type ReasoningHistory,
} from "../../src";
import { mockAgent } from "../../src/testing/mock-agent";
import { ev, msg } from "../../src/testing/builders";
import { runPipeline, TEST_PRODUCER } from "../../src/testing/run-pipeline";
import { countingClock } from "../support/clock";
import { resumable } from "../../src/resilience";

const at = (timestamp: number) => ({ timestamp });
const quiet = { onWarning: () => {}, producer: TEST_PRODUCER };

/** A stamped stream: a span (legacy title) holding one reasoning message, then an answer. */
const stamped = [
  ev.runStarted("r1", at(1000)),
  ev.thinkingStart({ title: "Planning", timestamp: 1000 }),
  ev.reasoningMessageStart("m1", at(1010)),
  ev.reasoningMessageContent("m1", "Let me think", at(1500)),
  ev.reasoningMessageEnd("m1", at(3010)),
  ev.thinkingEnd(at(3020)),
  ev.textChunk("a1", "Done.", at(3100)),
  ev.runFinished("r1", at(3200)),
];

const stampedDurations = [
  {
    kind: "span",
    id: expect.any(String) as string,
    startedAt: 1000,
    startObserved: false,
    endedAt: 3020,
    endObserved: false,
    title: "Planning",
  },
  {
    kind: "message",
    id: "m1",
    startedAt: 1010,
    startObserved: false,
    endedAt: 3010,
    endObserved: false,
    spanId: expect.any(String) as string,
  },
];

describe("D-DURATION: when reasoning started and ended, beside the messages", () => {
  it("D-DURATION R-EVT-3: from the events' timestamps (not observed), per message and its span, the legacy title kept (D-THINK-TITLE)", () => {
    const run = runPipeline(stamped);
    expect(run.error).toBeUndefined();
    expect(run.history.durations).toEqual(stampedDurations);
    const [span, message] = run.history.durations;
    expect(message!.spanId).toBe(span!.id);
    // Beside the message, never inside it.
    expect(run.history.messages[0]).toEqual(msg.reasoning("m1", "Let me think"));
  });

  it("D-DURATION: without timestamps, scheduler.now() at arrival, marked observed", () => {
    const run = runPipeline(
      [
        ev.runStarted(),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", "x"),
        ev.reasoningMessageEnd("m1"),
        ev.runFinished(),
      ],
      { scheduler: countingClock() },
    );
    expect(run.history.durations).toEqual([
      { kind: "message", id: "m1", startedAt: 0, startObserved: true, endedAt: 1, endObserved: true },
    ]);
  });

  it("D-DURATION D-HISTORY-IDS: a clock with fractions of a millisecond (performance.now()) is rounded, so the history stores and loads; one that gives no time fails the run naming it, never the content", () => {
    const unstamped = [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "secret thought"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ];
    const clock = (...readings: unknown[]) => ({
      now: () => readings.shift() as number,
      schedule: asyncScheduler.schedule.bind(asyncScheduler),
    });
    const { history } = runPipeline(unstamped, { scheduler: clock(1000.4, 2999.6) });
    expect(history.durations).toEqual([
      { kind: "message", id: "m1", startedAt: 1000, startObserved: true, endedAt: 3000, endObserved: true },
    ]);
    expect(parseHistory(serializeHistory(history))).toStrictEqual({ ...history, messages: [...history.messages] });
    for (const reading of [NaN, Infinity, 2 ** 60, "soon"]) {
      const { error } = runPipeline(unstamped, { scheduler: clock(reading) });
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(
        "agui-reasoning: `scheduler` must be an RxJS SchedulerLike whose `now()` gives milliseconds",
      );
    }
  });

  it("D-DURATION R-PROC-15: chunked reasoning takes its chunk's timestamp, the END its trigger's; the synthesized events carry none", () => {
    const events = [
      ev.runStarted("r1", at(5)),
      ev.reasoningChunk("m1", "a", at(100)),
      ev.reasoningChunk("m1", "b", at(150)),
      ev.textChunk("a1", "answer", at(900)),
      ev.runFinished("r1", at(950)),
    ];
    const run = runPipeline(events, { scheduler: countingClock() });
    expect(run.history.durations).toEqual([
      { kind: "message", id: "m1", startedAt: 100, startObserved: false, endedAt: 900, endObserved: false },
    ]);
    const synthesized = run.events.filter((e) => e.type.startsWith("REASONING_MESSAGE_"));
    expect(synthesized.map((e) => e.type)).toEqual([
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
    ]);
    for (const e of synthesized) expect(e).not.toHaveProperty("timestamp");
  });

  it("D-DURATION D-TRUNC D-RUN-ERROR: an open, abandoned or truncated message has a start and no end", () => {
    const clock = { scheduler: countingClock() };
    const open = runPipeline([ev.runStarted(), ev.reasoningMessageStart("m1")], clock);
    expect(open.histories[open.histories.length - 2]!.durations).toEqual([
      { kind: "message", id: "m1", startedAt: 0, startObserved: true },
    ]);
    expect(open.history.incomplete).toEqual([{ kind: "message", id: "m1", reason: "truncated" }]);
    expect(open.history.durations).toEqual([{ kind: "message", id: "m1", startedAt: 0, startObserved: true }]);
    const abandoned = runPipeline(
      [ev.runStarted("r1", at(1)), ev.reasoningMessageStart("m1", at(2)), ev.runError("boom", at(3))],
      clock,
    );
    expect(abandoned.history.durations).toEqual([{ kind: "message", id: "m1", startedAt: 2, startObserved: false }]);
  });

  it("D-DURATION R-REASON-17: never in run input — what goes back is the same with or without durations", () => {
    const { history } = runPipeline(stamped);
    expect(history.durations).toHaveLength(2);
    const sent = toRunInputMessages(history, quiet);
    expect(sent).toEqual(toRunInputMessages({ ...history, durations: [] }, quiet));
    expect(JSON.stringify(sent)).not.toContain("startedAt");
  });

  it("D-DURATION: the operators piped give the facade's durations", async () => {
    const facade = runPipeline(stamped).history;
    const piped = await lastValueFrom(
      from(stamped).pipe(
        upcastThinking({ ...quiet, idFactory: sequential() }),
        enforceSchema(quiet),
        expandChunks(quiet),
        verifyDiscipline(quiet),
        deriveHistory(quiet),
      ),
    );
    expect(piped.durations).toEqual(facade.durations);
  });

  it("D-DURATION: serializeHistory/parseHistory keep the durations (format version 2)", () => {
    const { history } = runPipeline(stamped);
    const text = serializeHistory(history);
    expect(JSON.parse(text)).toMatchObject({ version: 2, durations: history.durations });
    expect(parseHistory(text)).toStrictEqual({ ...history, messages: [...history.messages] });
  });

  it("D-DURATION: a history stored in format version 1 (before durations) still loads, with none", () => {
    const text = readFileSync(join(__dirname, "../fixtures/storage/history-v1.json"), "utf8");
    expect(JSON.parse(text)).toMatchObject({ format: "agui-reasoning/history", version: 1 });
    const history = parseHistory(text);
    expect(history.durations).toEqual([]);
    expect(history.messages.map((m) => m.id)).toEqual(["u1", "m1", "a1"]);
    // It seeds a pipeline that dates what comes next.
    const next = runPipeline(
      [
        ev.runStarted("r2"),
        ev.reasoningMessageStart("m2", at(7)),
        ev.reasoningMessageEnd("m2", at(9)),
        ev.runFinished("r2"),
      ],
      { initialHistory: history },
    );
    expect(next.history.durations).toEqual([
      { kind: "message", id: "m2", startedAt: 7, startObserved: false, endedAt: 9, endObserved: false },
    ]);
  });

  it("D-DURATION R-TRANS-1: exportState/resumeFrom keep the durations and a span still open at the cut", () => {
    // Cut after THINKING_START (a span open, not dated yet) and after the message's START and CONTENT.
    for (const cut of [2, 4]) {
      const first = reasoningPipeline(from(stamped.slice(0, cut)), { ...quiet, idFactory: sequential() });
      first.events$.subscribe({ error: () => {} });
      const snapshot = JSON.parse(JSON.stringify(first.exportState())) as ReturnType<typeof first.exportState>;
      // The source completed mid-run: the snapshot is the state from before the end of the source.
      const second = reasoningPipeline(from(stamped.slice(cut)), { ...quiet, resumeFrom: resumable(snapshot) });
      let last: ReasoningHistory | undefined;
      second.history$.subscribe((h) => (last = h));
      second.events$.subscribe({ error: (e: unknown) => fail(e) });
      expect(last!.durations).toEqual(runPipeline(stamped).history.durations);
    }
  });

  it("D-DURATION: the middleware keeps each run's durations across runs", async () => {
    const agent = mockAgent([
      [
        ev.runStarted("r1", at(10)),
        ev.reasoningChunk("m1", "a", at(11)),
        ev.textChunk("a1", "x", at(20)),
        ev.runFinished("r1", at(21)),
      ],
      [
        ev.runStarted("r2", at(30)),
        ev.reasoningChunk("m2", "b", at(31)),
        ev.textChunk("a2", "y", at(40)),
        ev.runFinished("r2", at(41)),
      ],
    ]);
    const middleware = reasoningMiddleware({ ...quiet, scheduler: countingClock() });
    agent.use(middleware);
    await agent.runAgent();
    await agent.runAgent();
    expect(middleware.history!.durations).toEqual([
      { kind: "message", id: "m1", startedAt: 11, startObserved: false, endedAt: 20, endObserved: false },
      { kind: "message", id: "m2", startedAt: 31, startObserved: false, endedAt: 40, endObserved: false },
    ]);
  });
});

function sequential(): () => string {
  let n = 0;
  return () => `think-${++n}`;
}
