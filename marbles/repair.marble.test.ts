import { from } from "rxjs";
import {
  expandChunks,
  enforceSchema,
  upcastThinking,
  verifyDiscipline,
  type AguiEvent,
  type ReasoningWarning,
} from "../src";
import { runStage } from "../src/stages";
import { createRepairStage, repairStream } from "../src/repair/repair-stream";
import { ev, historyOf, msg } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";
import { runPipeline } from "../src/testing/run-pipeline";

/** What a repair warning must say: code, rule, where, which ids, lossy or not. */
const repaired = (code: string, rule: string, eventIndex: number, eventType: string, ids: string[], lossy: boolean) =>
  expect.objectContaining({
    code,
    rule,
    eventIndex,
    eventType,
    ids,
    ...(lossy ? { lossy: true } : {}),
  }) as unknown as ReasoningWarning;

/** Runs `repairStream` alone over an array (pure step, no RxJS). */
const repair = (events: readonly unknown[]) => runStage(createRepairStage(), events);

const runError = (why: string) => ({
  type: "RUN_ERROR",
  message: expect.stringContaining(why) as unknown as string,
  code: "REPAIRED_TRUNCATION",
});

describe("repairStream (opt-in, before the strict pipeline)", () => {
  it("R-REASON-9: CONTENT for a reasoning message that is not open is dropped with a lossy warning naming its size, never its text", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted(),
        b: ev.reasoningMessageContent("m1", "lost thought"),
        c: ev.reasoningMessageEnd("m1"),
        d: ev.runFinished(),
      };
      expectObservable(cold("a-b-c-d|", values).pipe(repairStream({ onWarning: sink.onWarning }))).toBe(
        "a-----d|",
        values,
      );
    });
    expect(sink.warnings).toEqual([
      repaired("REPAIRED_ORPHAN_DROPPED", "R-REASON-9", 1, "REASONING_MESSAGE_CONTENT", ["m1"], true),
      repaired("REPAIRED_ORPHAN_DROPPED", "R-REASON-9", 2, "REASONING_MESSAGE_END", ["m1"], false),
    ]);
  });

  it("R-REASON-9 D-REDACT: the orphan warning states bytes, not content; an END without metadata loses nothing (not lossy)", () => {
    const r = repair([
      ev.runStarted(),
      ev.reasoningMessageContent("m1", "héllo"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]);
    expect(r.warnings[0]!.message).toContain("6 bytes of content");
    expect(r.warnings[0]!.message).not.toContain("héllo");
    expect(r.warnings[0]!.lossy).toBe(true);
    expect(r.warnings[1]!.lossy).toBeUndefined();
  });

  it("R-REASON-14: a fragment naming a span id is an orphan like any other and is dropped", () => {
    const r = repair([
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningMessageContent("s1", "x"),
      ev.reasoningEnd("s1"),
      ev.runFinished(),
    ]);
    expect(r.out).toEqual([ev.runStarted(), ev.reasoningStart("s1"), ev.reasoningEnd("s1"), ev.runFinished()]);
    expect(r.warnings).toEqual([
      repaired("REPAIRED_ORPHAN_DROPPED", "R-REASON-9", 2, "REASONING_MESSAGE_CONTENT", ["s1"], true),
    ]);
  });

  it("R-REASON-10/11: a second START for an open span or reasoning message is dropped; the first stays open", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted(),
        b: ev.reasoningStart("s1"),
        c: ev.reasoningMessageStart("m1"),
        d: ev.reasoningMessageStart("m1", { metadata: { k: 1 } }),
        e: ev.reasoningStart("s1"),
        f: ev.reasoningMessageEnd("m1"),
        g: ev.reasoningEnd("s1"),
        h: ev.runFinished(),
      };
      expectObservable(cold("abcdefgh|", values).pipe(repairStream(sink))).toBe("abc--fgh|", values);
    });
    expect(sink.warnings).toEqual([
      repaired("REPAIRED_DUPLICATE_OPEN_DROPPED", "R-REASON-11", 3, "REASONING_MESSAGE_START", ["m1"], true),
      repaired("REPAIRED_DUPLICATE_OPEN_DROPPED", "R-REASON-10", 4, "REASONING_START", ["s1"], false),
    ]);
  });

  it("#49 R-REASON-11: a chunk naming a message open in explicit form (it would open it again) is dropped", () => {
    const r = repair([
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningChunk("m1", "x"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]);
    expect(r.out.map((e) => (e as AguiEvent).type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(r.warnings).toEqual([
      repaired("REPAIRED_DUPLICATE_OPEN_DROPPED", "R-REASON-11", 2, "REASONING_MESSAGE_CHUNK", ["m1"], true),
    ]);
  });

  it("R-REASON-13: items still open at RUN_FINISHED are closed just before it, innermost first, with their owners; a subagent with SUBAGENT_ERROR (never a success)", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted(),
        b: ev.reasoningStart("s1"),
        c: ev.subagentStarted("sa1"),
        d: ev.reasoningMessageStart("m1", { subagentRunId: "sa1" }),
        e: ev.stepStarted("plan", { subagentRunId: "sa1" }),
        f: ev.runFinished(),
      };
      expectObservable(cold("abcde-f-------|", values).pipe(repairStream(sink))).toBe("abcde-(vwxyf)-|", {
        ...values,
        v: { type: "STEP_FINISHED", stepName: "plan", subagentRunId: "sa1" },
        w: { type: "REASONING_MESSAGE_END", messageId: "m1", subagentRunId: "sa1" },
        x: {
          type: "SUBAGENT_ERROR",
          subagentRunId: "sa1",
          message: expect.stringContaining("had not ended"),
          code: "REPAIRED_TRUNCATION",
        },
        y: { type: "REASONING_END", messageId: "s1" },
      });
    });
    expect(sink.warnings).toEqual([
      repaired("REPAIRED_CLOSED_AT_FINISH", "R-REASON-13", 5, "RUN_FINISHED", ["plan", "m1", "sa1", "s1"], false),
    ]);
  });

  it("D-TRUNC R-TRANS-3: the source ends inside a run — the open items are closed and a RUN_ERROR (code REPAIRED_TRUNCATION) ends the run; never a RUN_FINISHED", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted("r1"),
        b: ev.reasoningStart("s1"),
        c: ev.reasoningMessageStart("m1"),
        d: ev.reasoningMessageContent("m1", "half"),
      };
      expectObservable(cold("abcd|", values).pipe(repairStream(sink))).toBe("abcd(xyz|)", {
        ...values,
        x: { type: "REASONING_MESSAGE_END", messageId: "m1" },
        y: { type: "REASONING_END", messageId: "s1" },
        z: runError('the source ended while run "r1" was open; 2 open item(s) were closed'),
      });
    });
    expect(sink.warnings).toEqual([
      repaired("REPAIRED_TRUNCATED_RUN", "D-TRUNC", 4, "<end of stream>", ["m1", "s1"], true),
    ]);
  });

  it("D-TRUNC: a source that ends outside a run (or after RUN_ERROR) needs no repair", () => {
    expect(repair([ev.runStarted(), ev.runFinished()])).toEqual({
      out: [ev.runStarted(), ev.runFinished()],
      warnings: [],
      state: expect.anything(),
    });
    expect(repair([ev.runStarted(), ev.reasoningStart("s1"), ev.runError()]).warnings).toEqual([]);
  });

  it("R-RUN-9: RUN_STARTED inside a run closes the unterminated run like a truncated one before the new run starts", () => {
    const r = repair([
      ev.runStarted("r1"),
      ev.toolCallStart("tc1"),
      ev.runStarted("r2"),
      ev.toolCallStart("tc1"),
      ev.toolCallEnd("tc1"),
      ev.runFinished("r2"),
    ]);
    expect(r.out).toEqual([
      ev.runStarted("r1"),
      ev.toolCallStart("tc1"),
      { type: "TOOL_CALL_END", toolCallId: "tc1" },
      runError('RUN_STARTED arrived while run "r1" was open'),
      ev.runStarted("r2"),
      ev.toolCallStart("tc1"),
      ev.toolCallEnd("tc1"),
      ev.runFinished("r2"),
    ]);
    expect(r.warnings).toEqual([repaired("REPAIRED_NESTED_RUN", "R-RUN-9", 2, "RUN_STARTED", ["tc1"], true)]);
  });

  it("R-RUN-1/8: events before the first RUN_STARTED, after RUN_FINISHED, and a second RUN_ERROR are dropped; a late RUN_ERROR after RUN_FINISHED passes (R-RUN-7)", () => {
    const r = repair([
      ev.reasoningStart("s0"),
      ev.runStarted(),
      ev.runFinished(),
      ev.custom("late"),
      ev.runError("late failure"),
      ev.runError("again"),
      ev.runFinished(),
    ]);
    expect(r.out).toEqual([ev.runStarted(), ev.runFinished(), ev.runError("late failure")]);
    expect(r.warnings).toEqual([
      repaired("REPAIRED_OUTSIDE_RUN_DROPPED", "R-RUN-1", 0, "REASONING_START", [], true),
      repaired("REPAIRED_OUTSIDE_RUN_DROPPED", "R-RUN-8", 3, "CUSTOM", [], true),
      repaired("REPAIRED_OUTSIDE_RUN_DROPPED", "R-RUN-8", 5, "RUN_ERROR", [], true),
      repaired("REPAIRED_OUTSIDE_RUN_DROPPED", "R-RUN-8", 6, "RUN_FINISHED", [], true),
    ]);
  });

  it("D-THINK-ORPHAN R-REASON-11: legacy THINKING_* orphans and double opens are dropped; a legacy item open at RUN_FINISHED gets its legacy END", () => {
    const r = repair([
      ev.runStarted(),
      ev.thinkingTextMessageContent("orphan"),
      ev.thinkingStart({ title: "Plan" }),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("kept"),
      ev.runFinished(),
    ]);
    expect(r.out).toEqual([
      ev.runStarted(),
      ev.thinkingStart({ title: "Plan" }),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("kept"),
      { type: "THINKING_TEXT_MESSAGE_END" },
      { type: "THINKING_END" },
      ev.runFinished(),
    ]);
    expect(r.warnings.map((w) => [w.code, w.rule, w.eventIndex, w.lossy])).toEqual([
      ["REPAIRED_ORPHAN_DROPPED", "D-THINK-ORPHAN", 1, true],
      ["REPAIRED_DUPLICATE_OPEN_DROPPED", "R-REASON-11", 4, undefined],
      ["REPAIRED_CLOSED_AT_FINISH", "R-REASON-13", 6, undefined],
    ]);
  });

  it("R-PROC-16 R-VER-4: repair never reshapes an event — non-objects, unknown types and malformed fields pass untouched for the strict stages to judge", () => {
    const odd = [
      null,
      7,
      ["x"],
      { type: "REASONING_SUMMARY" },
      { type: "REASONING_MESSAGE_CONTENT", messageId: 7, delta: "x" },
    ];
    const r = repair([ev.runStarted(), ...odd, ev.runFinished()]);
    expect(r.out).toEqual([ev.runStarted(), ...odd, ev.runFinished()]);
    expect(r.out[5]).toBe(odd[4]);
    expect(r.warnings).toEqual([]);
    expect(runPipeline(from(r.out)).error).toMatchObject({ code: "MALFORMED_EVENT", eventIndex: 1 });
  });

  it("R-SUB-5: a SUBAGENT_STARTED whose parentSubagentRunId was never announced is dropped with a lossy warning naming both ids; an announced parent (open or ended) passes", () => {
    const nested = ev.subagentStarted("child", { parentSubagentRunId: "parent" });
    const orphan = ev.subagentStarted("lost", { parentSubagentRunId: "ghost" });
    const r = repair([
      ev.runStarted(),
      ev.subagentStarted("parent"),
      nested,
      ev.subagentFinished("child"),
      ev.subagentFinished("parent"),
      ev.subagentStarted("late", { parentSubagentRunId: "parent" }),
      ev.subagentFinished("late"),
      orphan,
      ev.subagentFinished("lost"),
      ev.runFinished(),
    ]);
    expect(r.out).toEqual([
      ev.runStarted(),
      ev.subagentStarted("parent"),
      nested,
      ev.subagentFinished("child"),
      ev.subagentFinished("parent"),
      ev.subagentStarted("late", { parentSubagentRunId: "parent" }),
      ev.subagentFinished("late"),
      ev.runFinished(),
    ]);
    expect(r.warnings.map((w) => [w.code, w.rule, w.eventIndex, w.ids, w.lossy])).toEqual([
      ["REPAIRED_ORPHAN_DROPPED", "R-SUB-5", 7, ["lost", "ghost"], true],
      ["REPAIRED_ORPHAN_DROPPED", "R-SUB-5", 8, ["lost"], undefined],
    ]);
    expect(runPipeline(from(r.out)).error).toBeUndefined();
  });

  it("D-WARN R-VER-7: `quiet` does not silence the lossy repairs; it silences the others", () => {
    const sink = collectWarnings();
    const events = [ev.runStarted(), ev.reasoningMessageContent("m1", "x"), ev.reasoningStart("s1"), ev.runFinished()];
    from(events)
      .pipe(repairStream({ onWarning: sink.onWarning, quiet: true }))
      .subscribe();
    expect(sink.codes()).toEqual(["REPAIRED_ORPHAN_DROPPED"]);
  });
});

describe("repairStream then the strict pipeline: strict alone rejects, repaired is accepted (strict stays the default)", () => {
  const cases: [string, unknown[], string, string[], ReturnType<typeof historyOf>][] = [
    [
      "R-REASON-9: orphan content",
      [ev.runStarted(), ev.reasoningMessageContent("m1", "x"), ev.reasoningChunk("m2", "ok"), ev.runFinished()],
      "ORPHAN_CONTENT",
      ["REPAIRED_ORPHAN_DROPPED"],
      historyOf([msg.reasoning("m2", "ok")]),
    ],
    [
      "R-REASON-11: double open",
      [
        ev.runStarted(),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", "a"),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", "b"),
        ev.reasoningMessageEnd("m1"),
        ev.runFinished(),
      ],
      "DUPLICATE_OPEN",
      ["REPAIRED_DUPLICATE_OPEN_DROPPED"],
      historyOf([msg.reasoning("m1", "ab")]),
    ],
    [
      "D-SNAPSHOT-ROLE: a text message a snapshot restated as reasoning, open at RUN_FINISHED",
      [ev.runStarted(), ev.textStart("t"), ev.messagesSnapshot([msg.reasoning("t", "c")]), ev.runFinished()],
      "OPEN_AT_RUN_FINISHED",
      ["REPAIRED_CLOSED_AT_FINISH"],
      historyOf([msg.reasoning("t", "c")]),
    ],
    [
      "R-REASON-13: open at RUN_FINISHED",
      [
        ev.runStarted(),
        ev.reasoningStart("s1"),
        ev.reasoningMessageStart("m1"),
        ev.reasoningMessageContent("m1", "a"),
        ev.runFinished(),
      ],
      "OPEN_AT_RUN_FINISHED",
      ["REPAIRED_CLOSED_AT_FINISH"],
      historyOf([msg.reasoning("m1", "a")]),
    ],
    [
      "R-SUB-5 R-RUN-12: a subagent and its step open at RUN_FINISHED",
      [
        ev.runStarted(),
        ev.subagentStarted("sa1"),
        ev.stepStarted("plan", { subagentRunId: "sa1" }),
        ev.reasoningChunk("m1", "sub", { subagentRunId: "sa1" }),
        ev.runFinished(),
      ],
      "OPEN_AT_RUN_FINISHED",
      ["REPAIRED_CLOSED_AT_FINISH"],
      historyOf([msg.reasoning("m1", "sub", { subagentRunId: "sa1" })]),
    ],
    [
      "R-SUB-5: a subagent id announced again after it ended",
      [
        ev.runStarted(),
        ev.subagentStarted("sa1"),
        ev.subagentFinished("sa1"),
        ev.subagentStarted("sa1"),
        ev.subagentFinished("sa1"),
        ev.runFinished(),
      ],
      "DUPLICATE_OPEN",
      ["REPAIRED_DUPLICATE_OPEN_DROPPED", "REPAIRED_ORPHAN_DROPPED"],
      historyOf(),
    ],
    [
      "R-SUB-5: a SUBAGENT_STARTED naming a parent never announced in this run (its announcement and FINISHED are dropped; its tagged events stay)",
      [
        ev.runStarted(),
        ev.subagentStarted("child", { parentSubagentRunId: "ghost" }),
        ev.reasoningChunk("m1", "sub", { subagentRunId: "child" }),
        ev.subagentFinished("child"),
        ev.runFinished(),
      ],
      "ORPHAN_CONTENT",
      ["REPAIRED_ORPHAN_DROPPED", "REPAIRED_ORPHAN_DROPPED"],
      historyOf([msg.reasoning("m1", "sub", { subagentRunId: "child" })]),
    ],
    [
      "D-TRUNC: truncated with a chunk stream and a tool call open",
      [
        ev.runStarted(),
        ev.toolCallStart("tc1", "search"),
        ev.toolCallArgs("tc1", "{"),
        ev.reasoningChunk("m1", "half"),
      ],
      "RUN_TRUNCATED",
      ["REPAIRED_TRUNCATED_RUN"],
      // The repaired TOOL_CALL_END also ends the chunk stream of its lane (R-STREAM-15b): both close.
      historyOf([
        msg.assistant("tc1", undefined, { toolCalls: [msg.toolCall("tc1", "search", "{")] }),
        msg.reasoning("m1", "half"),
      ]),
    ],
    [
      "R-RUN-9: a nested RUN_STARTED",
      [
        ev.runStarted("r1"),
        ev.textChunk("a1", "Hi"),
        ev.runStarted("r2"),
        ev.textChunk("a2", "Again"),
        ev.runFinished("r2"),
      ],
      "NESTED_RUN",
      ["REPAIRED_NESTED_RUN"],
      historyOf([msg.assistant("a1", "Hi"), msg.assistant("a2", "Again")]),
    ],
    [
      "R-RUN-1: an event before RUN_STARTED",
      [ev.reasoningChunk("m0", "early"), ev.runStarted(), ev.runFinished()],
      "EVENT_OUTSIDE_RUN",
      ["REPAIRED_OUTSIDE_RUN_DROPPED"],
      historyOf(),
    ],
    [
      "D-THINK-ORPHAN: a legacy orphan",
      [ev.runStarted(), ev.thinkingTextMessageEnd(), ev.runFinished()],
      "LEGACY_ORPHAN",
      ["REPAIRED_ORPHAN_DROPPED"],
      historyOf(),
    ],
  ];

  it.each(cases)("%s", (_name, events, strictCode, repairCodes, history) => {
    const strict = runPipeline(events);
    expect(strict.error).toMatchObject({ code: strictCode });
    const sink = collectWarnings();
    const repairedRun = runPipeline(from(events).pipe(repairStream(sink)));
    expect(repairedRun.error).toBeUndefined();
    expect(sink.codes()).toEqual(repairCodes);
    expect(repairedRun.history).toEqual(history);
  });

  it("D-TRUNC R-RUN-13: a repaired truncation reaches the application as a producer-style RUN_ERROR, so the run is reported failed", () => {
    const run = runPipeline(
      from([ev.runStarted(), ev.reasoningChunk("m1", "half")]).pipe(repairStream({ onWarning: () => {} })),
    );
    expect(run.events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "RUN_ERROR",
    ]);
    expect(run.events[4]).toMatchObject({ code: "REPAIRED_TRUNCATION" });
    expect(run.events.some((e) => e.type === "RUN_FINISHED")).toBe(false);
  });

  it("R-STREAM-7: standalone between expansion and verification (validated, expanded events)", () => {
    const events = [
      ev.runStarted(),
      ev.reasoningChunk("m1", "a"),
      ev.reasoningMessageEnd("m1"),
      ev.reasoningMessageContent("m1", "late"),
      ev.runFinished(),
    ];
    const strict: unknown[] = [];
    let strictError: unknown;
    from(events)
      .pipe(upcastThinking(), enforceSchema(), expandChunks(), verifyDiscipline())
      .subscribe({ next: (e) => strict.push(e), error: (e: unknown) => (strictError = e) });
    // D-EVENT-INDEX: a fused chain names the index in its source (the verifier's fifth input is event #2).
    expect(strictError).toMatchObject({ code: "ORPHAN_END", eventIndex: 2 });
    const sink = collectWarnings();
    const out: AguiEvent[] = [];
    let completed = false;
    from(events)
      .pipe(upcastThinking(), enforceSchema(), expandChunks(), repairStream(sink), verifyDiscipline())
      .subscribe({ next: (e) => out.push(e), complete: () => (completed = true) });
    expect(completed).toBe(true);
    expect(out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(sink.codes()).toEqual(["REPAIRED_ORPHAN_DROPPED", "REPAIRED_ORPHAN_DROPPED"]);
  });
});
