import { concat, defer, from, Subject, takeUntil } from "rxjs";
import { countingClock } from "../test/support/clock";
import {
  reasoningPipeline,
  ReasoningProtocolError,
  toRunInputMessages,
  type AguiEvent,
  type ReasoningHistory,
  type ReasoningPipelineOptions,
  type ReasoningWarning,
} from "../src";
import { createExpandStage, createVerifyStage, runStage, stageOperator } from "../src/stages";
import type { PipelineSnapshot } from "../src/resume/pipeline-snapshot";
import { expandStateFromJSON, expandStateToJSON } from "../src/resume/chunk-codec";
import { verifyStateFromJSON, verifyStateToJSON } from "../src/resume/discipline-codec";
import { historyStateFromJSON } from "../src/resume/history-codec";
import { historyToJSON } from "../src/storage/history-format";
import { resumedStage } from "../src/resume/resumed-stage";
import { upcastStateFromJSON, upcastStateToJSON } from "../src/resume/upcast-codec";
import { ev, msg, sequentialIds } from "../src/testing/builders";
import { createTestScheduler } from "../src/testing/marbles";
import { runPipeline, TEST_PRODUCER, type PipelineRun } from "../src/testing/run-pipeline";
import { resumable } from "../src/resilience";

/** Everything one pipeline (or two, stitched) did. */
interface Outcome {
  readonly events: AguiEvent[];
  /** Every history `history$` published, the initial one first. */
  readonly histories: ReasoningHistory[];
  readonly warnings: ReasoningWarning[];
  readonly error?: unknown;
}

/** JSON text and back: a snapshot must survive storage unchanged. */
const throughJson = (snapshot: PipelineSnapshot): PipelineSnapshot =>
  JSON.parse(JSON.stringify(snapshot)) as PipelineSnapshot;

/** Options shared by both halves; the same idFactory (D-THINK-IDS) and clock (D-DURATION) continue across the split. */
const optionsFor = (): ReasoningPipelineOptions => ({
  producer: TEST_PRODUCER,
  idFactory: sequentialIds(),
  onWarning: () => {},
  scheduler: countingClock(),
});

function whole(events: readonly unknown[]): PipelineRun {
  return runPipeline(events, optionsFor());
}

/**
 * The first `at` events through a pipeline whose source stays open (the connection dropped without
 * completing), its state exported through JSON, then the rest through a new pipeline resuming from
 * it; the two halves' outputs stitched.
 */
function split(events: readonly unknown[], at: number): Outcome & { snapshot: PipelineSnapshot } {
  const options = optionsFor();
  const source = new Subject<unknown>();
  const first = reasoningPipeline(source, options);
  const out: AguiEvent[] = [];
  const histories: ReasoningHistory[] = [];
  const warnings: ReasoningWarning[] = [];
  first.history$.subscribe((h) => histories.push(h));
  first.warnings$.subscribe((w) => warnings.push(w));
  const sub = first.events$.subscribe({ next: (e) => out.push(e), error: () => {} });
  for (const e of events.slice(0, at)) source.next(e);
  const snapshot = throughJson(first.exportState());
  sub.unsubscribe();
  const second = runPipeline(events.slice(at), { ...options, resumeFrom: resumable(snapshot) });
  const stitched = {
    events: [...out, ...second.events],
    // The resumed pipeline starts by publishing the history it resumed from: the first's last one.
    histories: [...histories, ...second.histories.slice(1)],
    warnings: [...warnings, ...second.warnings],
    snapshot,
  };
  expect(second.histories[0]).toEqual(histories[histories.length - 1]);
  return second.error === undefined ? stitched : { ...stitched, error: second.error };
}

/** The same errors: class, code, rule, index, type, ids and message. */
function sameError(actual: unknown, expected: unknown): void {
  if (expected === undefined) {
    expect(actual).toBeUndefined();
    return;
  }
  expect(actual).toBeInstanceOf(ReasoningProtocolError);
  const pick = (e: unknown) => {
    const { code, rule, eventIndex, eventType, ids, message } = e as ReasoningProtocolError;
    return { code, rule, eventIndex, eventType, ids, message };
  };
  expect(pick(actual)).toEqual(pick(expected));
}

const value = "gAAAA-opaque-ciphertext";

/** Named streams, each with what the uninterrupted pipeline must do with it. */
const STREAMS: Record<string, { events: unknown[]; code?: string; index?: number; warnings?: string[] }> = {
  "span, chunk stream, text, tool call, value, two runs": {
    events: [
      ev.runStarted("r1"),
      ev.reasoningStart("s1"),
      ev.reasoningChunk("m1", "Let "),
      ev.reasoningChunk(undefined, "me "),
      ev.reasoningChunk(undefined, "think"),
      ev.reasoningEnd("s1"),
      ev.encryptedValue("message", "m1", value),
      ev.textStart("a1"),
      ev.textContent("a1", "Hi"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
      ev.toolCallArgs("tc1", '{"q":'),
      ev.textEnd("a1"),
      ev.toolCallArgs("tc1", '"x"}'),
      ev.toolCallEnd("tc1"),
      ev.encryptedValue("tool-call", "tc1", "v-tool"),
      ev.runFinished("r1"),
      ev.runStarted("r2"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", " again"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished("r2"),
    ],
    warnings: [],
  },
  "violation after the split: explicit CONTENT for a chunk-opened message (R-STREAM-9)": {
    events: [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningChunk("m1", "a"),
      ev.reasoningChunk(undefined, "b"),
      ev.custom("c"),
      ev.reasoningMessageContent("m1", "x"),
      ev.runFinished(),
    ],
    code: "ORPHAN_CONTENT",
    index: 5,
  },
  "legacy THINKING_* open across the split (D-THINK-IDS)": {
    events: [
      ev.runStarted(),
      ev.thinkingStart({ title: "Planning" }),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("step 1"),
      ev.thinkingTextMessageContent(", step 2"),
      ev.thinkingTextMessageEnd(),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("more"),
      ev.thinkingTextMessageEnd(),
      ev.thinkingEnd(),
      ev.runFinished(),
    ],
    warnings: ["THINKING_UPCAST", "THINKING_TITLE_MOVED", ...Array<string>(8).fill("THINKING_UPCAST")],
  },
  "subagent lanes, steps per owner, a snapshot removing an open message (D-SNAPSHOT-OPEN)": {
    events: [
      ev.runStarted(),
      ev.subagentStarted("sa1"),
      ev.subagentStarted("sa2"),
      ev.stepStarted("plan"),
      ev.stepStarted("plan", { subagentRunId: "sa1" }),
      ev.reasoningChunk("m1", "one", { subagentRunId: "sa1" }),
      ev.reasoningChunk("m2", "two", { subagentRunId: "sa2" }),
      ev.reasoningChunk(undefined, "+1", { subagentRunId: "sa1" }),
      ev.textStart("a1"),
      ev.textContent("a1", "partial"),
      ev.messagesSnapshot([msg.user("u1", "hello")]),
      ev.textContent("a1", " lost"),
      ev.textEnd("a1"),
      ev.stepFinished("plan", { subagentRunId: "sa1" }),
      ev.subagentFinished("sa1"),
      ev.stepFinished("plan"),
      ev.subagentFinished("sa2"),
      ev.runFinished(),
    ],
    warnings: ["TARGET_REMOVED"],
  },
  "truncated: the source ends inside the run (D-TRUNC)": {
    events: [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningChunk("m1", "half"),
      ev.toolCallStart("tc1"),
      ev.toolCallArgs("tc1", "{"),
    ],
    code: "RUN_TRUNCATED",
    index: 5,
  },
  "role conflict after the split: a reasoning START naming a text message of an earlier run (D-ROLE-CONFLICT)": {
    events: [
      ev.runStarted("r1"),
      ev.textChunk("a1", "answer"),
      ev.runFinished("r1"),
      ev.runStarted("r2"),
      ev.reasoningMessageStart("a1"),
      ev.runFinished("r2"),
    ],
    code: "ID_ROLE_CONFLICT",
    index: 4,
  },
  "a subagent id reused after the split (R-SUB-5)": {
    events: [
      ev.runStarted(),
      ev.subagentStarted("sa1"),
      ev.subagentFinished("sa1"),
      ev.subagentStarted("sa1"),
      ev.runFinished(),
    ],
    code: "DUPLICATE_OPEN",
    index: 3,
  },
};

describe("resume: exportState() → resumeFrom", () => {
  describe.each(Object.entries(STREAMS))("%s", (_name, stream) => {
    const reference = whole(stream.events);

    it("R-TRANS-1 (reference): the uninterrupted pipeline gives the expected outcome", () => {
      if (stream.code === undefined) expect(reference.error).toBeUndefined();
      else expect(reference.error).toMatchObject({ code: stream.code, eventIndex: stream.index });
      if (stream.warnings !== undefined) expect(reference.warnings.map((w) => w.code)).toEqual(stream.warnings);
      expect(reference.events.length).toBeGreaterThan(0);
    });

    // Every split point up to the violating event (a rejected stream cannot be exported, see below).
    const last = stream.code === undefined || stream.code === "RUN_TRUNCATED" ? stream.events.length : stream.index!;
    it.each(Array.from({ length: last + 1 }, (_, at) => at))(
      "R-TRANS-1/5: split after %i events, the two halves give the same events, histories, warnings and error as the whole",
      (at) => {
        const halves = split(stream.events, at);
        expect(halves.events).toEqual(reference.events);
        expect(halves.histories).toEqual(reference.histories);
        expect(halves.warnings).toEqual(reference.warnings);
        sameError(halves.error, reference.error);
        expect(halves.snapshot.index).toBe(at);
      },
    );
  });

  it("R-TRANS-1: a reconnect in one marble diagram — the stream is cut mid-run (a chunk stream open), resumed from the exported state, and reads as one stream", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted(),
        b: ev.reasoningChunk("m1", "Let "),
        c: ev.reasoningChunk(undefined, "me"),
        d: ev.custom("c"),
        e: ev.runFinished(),
      };
      const options = optionsFor();
      // The first connection delivers a and b, then stalls; it is given up at frame 12.
      const first = reasoningPipeline(cold("a-----b---------", values), options);
      const resumed = defer(
        () =>
          reasoningPipeline(cold("c-----d-----e|", values), {
            ...options,
            resumeFrom: resumable(throughJson(first.exportState())),
          }).events$,
      );
      const stitched = concat(first.events$.pipe(takeUntil(cold("------------x"))), resumed);
      expectObservable(stitched).toBe("a-----(bc)--d-----(ef)--g|", {
        a: values.a,
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "Let " },
        d: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "me" },
        e: { type: "REASONING_MESSAGE_END", messageId: "m1" },
        f: values.d,
        g: values.e,
      });
    });
  });
  it("D-TRUNC R-TRANS-3: after the source completed mid-run (RUN_TRUNCATED), exportState gives the state from before the end of the source, and the rest continues it", () => {
    const events = STREAMS["span, chunk stream, text, tool call, value, two runs"]!.events;
    const reference = whole(events);
    const options = optionsFor();
    const first = runPipelineKeeping(events.slice(0, 11), options);
    expect(first.run.error).toMatchObject({ code: "RUN_TRUNCATED", eventIndex: 11, ids: ["a1", "tc1"] });
    // The first pipeline's own history records the truncation…
    expect(first.run.history.incomplete).toEqual([
      { kind: "message", id: "a1", reason: "truncated" },
      { kind: "tool-call", id: "tc1", reason: "truncated" },
    ]);
    // …the snapshot does not: the run goes on in the next connection.
    const snapshot = throughJson(first.pipeline.exportState());
    expect(snapshot.history.history.incomplete).toEqual([
      { kind: "message", id: "a1", reason: "open" },
      { kind: "tool-call", id: "tc1", reason: "open" },
    ]);
    expect(snapshot.history.open).toEqual({ messages: ["a1"], toolCalls: ["tc1"] });
    expect(snapshot.index).toBe(11);
    const second = runPipeline(events.slice(11), { ...options, resumeFrom: resumable(snapshot) });
    expect(second.error).toBeUndefined();
    expect([...first.run.events, ...second.events]).toEqual(reference.events);
    expect(second.history).toEqual(reference.history);
  });

  it("R-RUN-10: a long conversation (more messages than the history builds eagerly) resumes and stores as it would uninterrupted", () => {
    const events: unknown[] = [ev.runStarted()];
    for (let i = 0; i < 150; i++)
      events.push(ev.textChunk(`a${i}`, `answer ${i}`), ev.encryptedValue("message", `a${i}`, `v${i}`));
    events.push(
      ev.reasoningChunk("m1", "open at the split"),
      ev.reasoningChunk(undefined, " and after"),
      ev.runFinished(),
    );
    const reference = whole(events);
    expect(reference.error).toBeUndefined();
    expect(reference.history.messages).toHaveLength(151);
    for (const at of [1, 200, 301, 302]) {
      const halves = split(events, at);
      expect(halves.events).toEqual(reference.events);
      expect(halves.histories[halves.histories.length - 1]).toEqual(reference.history);
    }
  });

  it("D-ISSUER R-REASON-17: values stored before and after the split are recorded for the producer and go back in the run input", () => {
    const events = STREAMS["span, chunk stream, text, tool call, value, two runs"]!.events;
    const halves = split(events, 12);
    const last = halves.histories[halves.histories.length - 1]!;
    expect(last.issuers).toEqual([
      { subtype: "message", entityId: "m1", issuer: TEST_PRODUCER },
      { subtype: "tool-call", entityId: "tc1", issuer: TEST_PRODUCER },
    ]);
    expect(toRunInputMessages(last, { producer: TEST_PRODUCER, onWarning: () => {} })).toEqual([
      msg.reasoning("m1", "Let me think again", { encryptedValue: value }),
      msg.assistant("a1", "Hi", {
        toolCalls: [msg.toolCall("tc1", "search", '{"q":"x"}', { encryptedValue: "v-tool" })],
      }),
    ]);
  });

  it("R-TRANS-1: items open before the split count against maxOpenItems after it (LIMIT_EXCEEDED at the same index)", () => {
    const events = [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningMessageStart("m1"),
      ev.toolCallStart("tc1"),
      ev.runFinished(),
    ];
    const reference = runPipeline(events, { ...optionsFor(), maxOpenItems: 2 });
    expect(reference.error).toMatchObject({ code: "LIMIT_EXCEEDED", eventIndex: 3 });
    const options = { ...optionsFor(), maxOpenItems: 2 };
    const source = new Subject<unknown>();
    const first = reasoningPipeline(source, options);
    first.connect();
    for (const e of events.slice(0, 3)) source.next(e);
    const second = runPipeline(events.slice(3), {
      ...options,
      resumeFrom: resumable(throughJson(first.exportState())),
    });
    sameError(second.error, reference.error);
  });

  it("D-ISSUER R-TRANS-1: the snapshot's history is historyToJSON's stored form, issuer records included (none configured: null)", () => {
    for (const producer of [TEST_PRODUCER, undefined]) {
      const source = new Subject<unknown>();
      const live = reasoningPipeline(source, { ...optionsFor(), producer });
      live.connect();
      for (const e of [ev.runStarted(), ev.reasoningChunk("m1", "x"), ev.encryptedValue("message", "m1", "v1")])
        source.next(e);
      const stored = live.exportState().history.history;
      expect(stored).toStrictEqual(historyToJSON(live.history));
      expect(stored.issuers).toEqual([{ subtype: "message", entityId: "m1", issuer: producer ?? null }]);
    }
  });

  it("R-TRANS-1: exportState is plain JSON: it survives JSON text unchanged, carries its format and version, and a resumed pipeline that has not started exports it back", () => {
    const events =
      STREAMS["subagent lanes, steps per owner, a snapshot removing an open message (D-SNAPSHOT-OPEN)"]!.events;
    const source = new Subject<unknown>();
    const live = reasoningPipeline(source, optionsFor());
    live.connect();
    for (const e of events.slice(0, 10)) source.next(e);
    const original = live.exportState();
    expect(JSON.parse(JSON.stringify(original))).toStrictEqual(original);
    expect(original).toMatchObject({
      format: "agui-reasoning/pipeline-state",
      version: 1,
      producer: TEST_PRODUCER,
      index: 10,
    });
    // Its history is the stored form serializeHistory writes (storage and resume read one format).
    expect(original.history.history).toStrictEqual(historyToJSON(live.history));
    // Chunk lanes in opening order, steps per owner, the subagents announced in the run.
    expect(original.chunks.streams).toEqual([
      { chunkType: "REASONING_MESSAGE_CHUNK", id: "m1", owner: "sa1", opener: [] },
      { chunkType: "REASONING_MESSAGE_CHUNK", id: "m2", owner: "sa2", opener: [] },
    ]);
    expect(original.discipline.items).toEqual(
      expect.arrayContaining([
        { family: "STEP_STARTED", id: "plan", owner: null, open: true },
        { family: "STEP_STARTED", id: "plan", owner: "sa1", open: true },
        { family: "SUBAGENT_STARTED", id: "sa1", owner: null, open: true },
        { family: "TEXT_MESSAGE_START", id: "a1", owner: null, open: true },
      ]),
    );
    // After the snapshot (event 10) the open text message is one a snapshot removed (D-SNAPSHOT-OPEN).
    const { snapshot } = split(events, 11);
    expect(snapshot.history.removed).toEqual({ messages: ["a1"], toolCalls: [] });
    expect(snapshot.chunks.streams).toEqual([]);
    const idle = reasoningPipeline(new Subject<unknown>(), { ...optionsFor(), resumeFrom: resumable(snapshot) });
    expect(idle.exportState()).toStrictEqual(snapshot);
  });

  it("D-NO-ALIAS: exportState shares no object with the live history: editing the snapshot (redacting it before storing) changes neither the pipeline nor a later export", () => {
    const source = new Subject<unknown>();
    const live = reasoningPipeline(source, optionsFor());
    live.connect();
    for (const e of [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "secret thought"),
      ev.encryptedValue("message", "m1", "v1"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
      ev.encryptedValue("tool-call", "tc1", "v2"),
    ])
      source.next(e);
    const before = JSON.stringify(live.exportState());
    const history = JSON.stringify(live.history);
    const edited = live.exportState() as unknown as { history: Record<string, any> };
    const stored = edited.history.history;
    delete stored.messages[0].encryptedValue;
    stored.messages[1].toolCalls[0].function.name = "edited";
    delete stored.messages[1].toolCalls[0].encryptedValue;
    stored.incomplete[0].reason = "truncated";
    stored.durations[0].startedAt = -1;
    edited.history.spans[0].startedAt = -1;
    expect(JSON.stringify(live.history)).toBe(history);
    expect(JSON.stringify(live.exportState())).toBe(before);
  });

  it("R-TRANS-1: exportState between events works from a history$ subscriber and throws, naming why, from an events$ subscriber (states are mid-event)", () => {
    const source = new Subject<unknown>();
    const pipeline = reasoningPipeline(source, optionsFor());
    const exported: number[] = [];
    const refused: string[] = [];
    pipeline.history$.subscribe(() => exported.push(pipeline.exportState().index));
    pipeline.events$.subscribe(() => {
      try {
        pipeline.exportState();
      } catch (e) {
        refused.push((e as Error).message);
      }
    });
    source.next(ev.runStarted());
    source.next(ev.reasoningChunk("m1", "a"));
    expect(exported).toEqual([0, 2]);
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatch(/exportState\(\) was called while the pipeline was processing a source event/);
  });

  it("R-RUN-13: a stream rejected by a protocol error cannot be exported (resuming would hide the violation)", () => {
    const source = new Subject<unknown>();
    const pipeline = reasoningPipeline(source, optionsFor());
    pipeline.events$.subscribe({ error: () => {} });
    source.next(ev.runStarted());
    source.next(ev.reasoningMessageContent("m1", "secret thought"));
    expect(() => pipeline.exportState()).toThrow(
      "the stream was rejected (ORPHAN_CONTENT at event #1); a rejected stream cannot be resumed",
    );
  });

  it("R-TRANS-1: after the source errored (a dropped connection), the state up to the last event is exported", () => {
    const source = new Subject<unknown>();
    const pipeline = reasoningPipeline(source, optionsFor());
    pipeline.events$.subscribe({ error: () => {} });
    source.next(ev.runStarted());
    source.next(ev.reasoningChunk("m1", "a"));
    source.error(new Error("socket closed"));
    const snapshot = pipeline.exportState();
    expect(snapshot.index).toBe(2);
    expect(snapshot.chunks.streams).toEqual([
      { chunkType: "REASONING_MESSAGE_CHUNK", id: "m1", owner: null, opener: [] },
    ]);
  });
});

describe("resume: one stage at a time (toJSON/fromJSON per stage state + resumedStage)", () => {
  it("R-STREAM-12/15: a standalone expandChunks resumed mid-stream continues the open chunk stream", () => {
    const first = runStage(createExpandStage(), [ev.runStarted(), ev.reasoningChunk("m1", "a")]);
    const json = JSON.parse(JSON.stringify(expandStateToJSON(first.state))) as unknown;
    expect(json).toEqual({ streams: [{ chunkType: "REASONING_MESSAGE_CHUNK", id: "m1", owner: null, opener: [] }] });
    const resumed = resumedStage(createExpandStage(), () => expandStateFromJSON(json));
    const out: AguiEvent[] = [];
    from([ev.reasoningChunk(undefined, "b"), ev.runFinished()])
      .pipe(stageOperator(resumed))
      .subscribe((e) => out.push(e));
    expect(out).toEqual([
      { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "b" },
      { type: "REASONING_MESSAGE_END", messageId: "m1" },
      ev.runFinished(),
    ]);
  });

  it("R-REASON-10: a standalone verifyDiscipline resumed with a span open rejects a second START of it; every per-stage reader checks its input", () => {
    const first = runStage(createVerifyStage(), [ev.runStarted("r1"), ev.reasoningStart("s1")]);
    const json = JSON.parse(JSON.stringify(verifyStateToJSON(first.state))) as unknown;
    const second = runStage(
      resumedStage(createVerifyStage(), () => verifyStateFromJSON(json)),
      [ev.reasoningStart("s1")],
    );
    expect(second.error).toMatchObject({ code: "DUPLICATE_OPEN", rule: "R-REASON-10", ids: ["s1"] });
    expect(() => verifyStateFromJSON({ phase: "active" })).toThrow(
      "verifyStateFromJSON: /roles must be an array (got undefined)",
    );
    expect(() =>
      upcastStateFromJSON(upcastStateToJSON({ span: "think-1", message: undefined, expired: false })),
    ).not.toThrow();
    expect(() => historyStateFromJSON({})).toThrow("historyStateFromJSON: /history must be an object (got undefined)");
    expect(() =>
      expandStateFromJSON({
        streams: [{ chunkType: "TOOL_CALL_CHUNK", id: "tc1", owner: null, opener: [null, null] }],
      }),
    ).toThrow("expandStateFromJSON: /streams/0/opener/0 (toolCallName) is required for a tool call");
  });

  it("resumedStage keeps the `this` of a stage written as a class, in step and in finish", () => {
    class Counting {
      readonly name = "counting";
      private readonly tag = "seen";
      init(): number {
        return 0;
      }
      step(state: number, event: AguiEvent): { state: number; out: readonly AguiEvent[]; warnings: readonly never[] } {
        return { state: state + 1, out: [{ ...event, [this.tag]: state + 1 }], warnings: [] };
      }
      finish(state: number): { state: number; out: readonly AguiEvent[]; warnings: readonly never[] } {
        return { state, out: [{ type: "CUSTOM", name: this.tag, value: state }], warnings: [] };
      }
    }
    const out: AguiEvent[] = [];
    from([ev.runStarted(), ev.runFinished()])
      .pipe(stageOperator(resumedStage(new Counting(), () => 5)))
      .subscribe((e) => out.push(e));
    expect(out).toEqual([
      { ...ev.runStarted(), seen: 6 },
      { ...ev.runFinished(), seen: 7 },
      { type: "CUSTOM", name: "seen", value: 7 },
    ]);
  });
});

describe("resume: a broken snapshot is a TypeError at creation naming what is wrong", () => {
  const good = (): Record<string, any> => {
    const source = new Subject<unknown>();
    const p = reasoningPipeline(source, optionsFor());
    p.connect();
    for (const e of [
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.toolCallStart("tc1", "search"),
      ev.reasoningChunk("m1", "secret thought"),
    ])
      source.next(e);
    return JSON.parse(JSON.stringify(p.exportState()));
  };
  const create =
    (resumeFrom: unknown, extra: ReasoningPipelineOptions = {}) =>
    () =>
      reasoningPipeline(new Subject<unknown>(), {
        ...optionsFor(),
        ...extra,
        resumeFrom: resumable(resumeFrom as PipelineSnapshot),
      });

  const cases: [string, (s: Record<string, any>) => unknown, string][] = [
    ["not an object", () => 42, "resumeFrom: / must be an object (got number)"],
    [
      "another format",
      (s) => ({ ...s, format: "agui-reasoning/history" }),
      'resumeFrom: /format must be "agui-reasoning/pipeline-state"',
    ],
    ["a newer version", (s) => ({ ...s, version: 2 }), "resumeFrom: /version is 2, newer than this package reads (1)"],
    [
      "a truncated text",
      (s) => JSON.stringify(s).slice(0, 200),
      "resumeFrom: / is not valid JSON text (200 characters)",
    ],
    [
      "no index",
      (s) => ({ ...s, index: undefined }),
      "resumeFrom: /index must be a non-negative integer (got undefined)",
    ],
    ["a negative index", (s) => ({ ...s, index: -1 }), "resumeFrom: /index must be a non-negative integer"],
    ["no chunk state", (s) => ({ ...s, chunks: undefined }), "resumeFrom: /chunks must be an object (got undefined)"],
    [
      "an unknown chunk family",
      (s) => ({ ...s, chunks: { streams: [{ ...s.chunks.streams[0], chunkType: "THOUGHT_CHUNK" }] } }),
      "resumeFrom: /chunks/streams/0/chunkType must be one of",
    ],
    [
      "two streams in one lane",
      (s) => ({ ...s, chunks: { streams: [s.chunks.streams[0], { ...s.chunks.streams[0], id: "m2" }] } }),
      "resumeFrom: /chunks/streams/1/owner names a lane that already has an open stream",
    ],
    [
      "a bad run phase",
      (s) => ({ ...s, discipline: { ...s.discipline, phase: "running" } }),
      'resumeFrom: /discipline/phase must be one of "none" | "active" | "finished" | "errored" (got another string)',
    ],
    [
      "items outside a run",
      (s) => ({ ...s, discipline: { ...s.discipline, phase: "finished" } }),
      'resumeFrom: /discipline/items must be empty in phase "finished"',
    ],
    [
      "an item of no family",
      (s) => ({
        ...s,
        discipline: { ...s.discipline, items: [{ family: "THINKING_START", id: "x", owner: null, open: true }] },
      }),
      "resumeFrom: /discipline/items/0/family must be one of",
    ],
    [
      "a role pair cut short",
      (s) => ({ ...s, discipline: { ...s.discipline, roles: [["m1"]] } }),
      "resumeFrom: /discipline/roles/0 must be an [id, role] pair (got 1 elements)",
    ],
    [
      "a message that is not a message",
      (s) => ({
        ...s,
        history: {
          ...s.history,
          history: { ...s.history.history, messages: [{ id: "m1", role: "reasoning", content: 7 }] },
        },
      }),
      "resumeFrom: /history/history/messages/0 is not an AG-UI 1.0 message: the schema rejects /content (expected string, received number)",
    ],
    [
      "an open message the history does not hold",
      (s) => ({ ...s, history: { ...s.history, open: { messages: ["m9"], toolCalls: [] } } }),
      'resumeFrom: /history/open/messages names "m9", which the history does not hold',
    ],
    [
      "an open tool call not listed as incomplete",
      (s) => ({
        ...s,
        history: {
          ...s.history,
          history: {
            ...s.history.history,
            incomplete: s.history.history.incomplete.filter((i: { kind: string }) => i.kind !== "tool-call"),
          },
        },
      }),
      'resumeFrom: /history/open/toolCalls names "tc1", which the history does not list as incomplete "open"',
    ],
    [
      "a part whose getter throws (a snapshot given as an object)",
      (s) =>
        Object.defineProperty({ ...s }, "discipline", {
          enumerable: true,
          get: () => {
            throw new Error("secret thought");
          },
        }),
      "resumeFrom: /discipline cannot be read as JSON data (a read of it threw)",
    ],
    [
      "a held message whose getter throws",
      (s) => {
        const message = Object.defineProperty({ ...s.history.history.messages[0] }, "content", {
          enumerable: true,
          get: () => {
            throw new Error("secret thought");
          },
        });
        return { ...s, history: { ...s.history, history: { ...s.history.history, messages: [message] } } };
      },
      "resumeFrom: /history/history/messages/0 cannot be read as JSON data (a read of it threw)",
    ],
    [
      "a tool call open in the run that the history does not hold open",
      (s) => ({ ...s, history: { ...s.history, open: { ...s.history.open, toolCalls: [] } } }),
      '/discipline/items hold "tc1" open, which /history/open/toolCalls does not name',
    ],
    [
      "a message the history holds open that the run does not",
      (s) => ({
        ...s,
        discipline: { ...s.discipline, items: s.discipline.items.filter((i: { id: string }) => i.id !== "m1") },
      }),
      'resumeFrom: /history/open/messages names "m1", which /discipline/items does not hold open',
    ],
    [
      "a legacy id that is empty",
      (s) => ({ ...s, upcast: { ...s.upcast, span: "" } }),
      "resumeFrom: /upcast/span must not be the empty string (D-THINK-IDS)",
    ],
  ];

  it.each(cases)("R-TRANS-1 D-REDACT: %s", (_name, corrupt, message) => {
    const broken = corrupt(good());
    expect(create(broken)).toThrow(TypeError);
    expect(create(broken)).toThrow(message);
    let text = "";
    try {
      create(broken)();
    } catch (e) {
      text = (e as Error).message;
    }
    expect(text).not.toContain("secret thought");
  });

  it("D-ISSUER: a snapshot exported for another producer is refused (values after the resume would be recorded for another issuer)", () => {
    expect(create(good(), { producer: "https://other.example/run" })).toThrow(
      "resumeFrom: /producer names another producer than this pipeline's `producer` option",
    );
    expect(create({ ...good(), producer: null })).toThrow(TypeError);
  });

  it("R-TRANS-1: resumeFrom takes resumable(snapshot): the snapshot itself, or anything else, is a TypeError saying so (never what a hostile value throws)", () => {
    const says =
      'agui-reasoning: resumeFrom takes `resumable(snapshot)` from "agui-reasoning/resilience", not the snapshot itself';
    const given = (resumeFrom: unknown) => () =>
      reasoningPipeline(new Subject<unknown>(), { ...optionsFor(), resumeFrom: resumeFrom as never });
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("secret thought");
        },
      },
    );
    for (const wrong of [good(), 42, "{}", null, { [Symbol.for("agui-reasoning/resumable")]: "not a reader" }, hostile])
      expect(given(wrong)).toThrow(says);
    // The resilience entry's wrapper, whichever copy of the package made it (a registered symbol).
    expect(given(resumable(good() as PipelineSnapshot))).not.toThrow();
  });

  it("R-TRANS-1: resumeFrom already holds the history: initialHistory or initialMessages with it is refused", () => {
    expect(create(good(), { initialMessages: [msg.user("u1", "hi")] })).toThrow("resumeFrom already holds the history");
    expect(create(good(), { initialHistory: { messages: [], incomplete: [], issuers: [], durations: [] } })).toThrow(
      TypeError,
    );
  });
});

/** `runPipeline`, keeping the pipeline object to export from afterwards. */
function runPipelineKeeping(events: readonly unknown[], options: ReasoningPipelineOptions) {
  const pipeline = reasoningPipeline(from(events), options);
  const out: AguiEvent[] = [];
  let error: unknown;
  pipeline.events$.subscribe({ next: (e) => out.push(e), error: (e: unknown) => (error = e) });
  return { pipeline, run: { events: out, error, history: pipeline.history } };
}
