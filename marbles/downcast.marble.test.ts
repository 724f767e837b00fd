import { from, lastValueFrom, toArray } from "rxjs";
import { expandChunks, reasoningPipeline, ReasoningProtocolError, type AguiEvent, type ReasoningWarning } from "../src";
import { runStage } from "../src/stages";
import { createDowncastStage, downcastToThinking, DowncastError } from "../src/downcast/downcast-thinking";
import { ev, sequentialIds } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

const downcast = (events: readonly AguiEvent[]) => runStage(createDowncastStage(), events);

const lost = (code: string, rule: string, eventIndex: number, eventType: string, ids: string[], path: string) =>
  expect.objectContaining({ code, rule, eventIndex, eventType, ids, path, lossy: true }) as unknown as ReasoningWarning;

describe("downcastToThinking: REASONING_* → retired THINKING_* for pre-1.0 consumers", () => {
  it("R-DEP-2 D-THINK-TITLE: the upcast mapping read backwards; the moved title goes back to `title`; ids and values cannot be carried (lossy warnings)", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted(),
        b: ev.reasoningStart("s1", { metadata: { "agui-reasoning": { thinkingTitle: "Planning" } } }),
        c: ev.reasoningMessageStart("m1"),
        d: ev.reasoningMessageContent("m1", "Let me"),
        e: ev.reasoningMessageEnd("m1"),
        f: ev.encryptedValue("message", "m1", "gAAAA-secret-blob"),
        g: ev.reasoningEnd("s1"),
        h: ev.textStart("a1"),
        i: ev.runFinished(),
      };
      expectObservable(cold("abcdefghi|", values).pipe(downcastToThinking(sink))).toBe("abcde-ghi|", {
        a: values.a,
        b: { type: "THINKING_START", title: "Planning" },
        c: { type: "THINKING_TEXT_MESSAGE_START" },
        d: { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "Let me" },
        e: { type: "THINKING_TEXT_MESSAGE_END" },
        g: { type: "THINKING_END" },
        h: values.h,
        i: values.i,
      });
    });
    expect(sink.warnings).toEqual([
      lost("DOWNCAST_ID_DROPPED", "R-VER-6", 1, "REASONING_START", ["s1"], "/messageId"),
      lost("DOWNCAST_ID_DROPPED", "R-VER-6", 2, "REASONING_MESSAGE_START", ["m1"], "/messageId"),
      lost("DOWNCAST_VALUE_DROPPED", "R-REASON-19", 5, "REASONING_ENCRYPTED_VALUE", ["m1"], "/encryptedValue"),
    ]);
  });

  it("R-DEP-2 R-VER-3: upcast then downcast gives the legacy stream back, field for field — nothing invented, nothing reordered", async () => {
    const legacy = [
      ev.runStarted(),
      ev.thinkingStart({ title: "Working", timestamp: 1 }),
      ev.thinkingTextMessageStart(),
      ev.thinkingTextMessageContent("step 1", { rawEvent: { provider: "x" } }),
      ev.thinkingTextMessageContent(""),
      ev.thinkingTextMessageEnd(),
      ev.thinkingEnd(),
      ev.runFinished(),
    ];
    const upcast = reasoningPipeline(from(legacy), { idFactory: sequentialIds(), onWarning: () => {} }).events$;
    const back = await lastValueFrom(upcast.pipe(downcastToThinking({ onWarning: () => {} }), toArray()));
    expect(back).toEqual(legacy);
  });

  it("R-REASON-19 D-REDACT: the dropped value's warning names the entity and the byte length, never the value", () => {
    const r = downcast([ev.runStarted(), ev.encryptedValue("tool-call", "tc1", "gAAAA-secret-blob"), ev.runFinished()]);
    expect(r.out).toEqual([ev.runStarted(), ev.runFinished()]);
    expect(r.warnings).toEqual([
      lost("DOWNCAST_VALUE_DROPPED", "R-REASON-19", 1, "REASONING_ENCRYPTED_VALUE", ["tc1"], "/encryptedValue"),
    ]);
    expect(r.warnings[0]!.message).toContain("(17 bytes)");
    expect(JSON.stringify(r.warnings)).not.toContain("secret");
  });

  it("R-VER-6 D-REDACT: metadata has no 0.x place — every key but the title is dropped and named by its JSON pointer; a non-string thinkingTitle is no title", () => {
    const r = downcast([
      ev.runStarted(),
      ev.reasoningStart("s1", {
        metadata: { "agui-reasoning": { thinkingTitle: "T", other: 1 }, provider: { secret: "x" } },
      }),
      ev.reasoningEnd("s1", { metadata: { done: true } }),
      ev.reasoningStart("s2", { metadata: { "agui-reasoning": { thinkingTitle: 42 } } }),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "x", { metadata: { "a/b": 1 } }),
    ]);
    expect(r.out.slice(1, 4)).toEqual([
      { type: "THINKING_START", title: "T" },
      { type: "THINKING_END" },
      { type: "THINKING_START" },
    ]);
    const dropped = r.warnings.filter((w) => w.code === "DOWNCAST_METADATA_DROPPED");
    expect(dropped.map((w) => [w.eventIndex, w.ids, w.lossy])).toEqual([
      [1, ["s1"], true],
      [2, ["s1"], true],
      [3, ["s2"], true],
      [5, ["m1"], true],
    ]);
    expect(dropped[0]!.message).toContain("/metadata/agui-reasoning/other, /metadata/provider dropped");
    expect(dropped[1]!.message).toContain("/metadata/done dropped");
    expect(dropped[2]!.message).toContain("/metadata/agui-reasoning dropped");
    expect(dropped[3]!.message).toContain("/metadata/a~1b dropped");
    expect(dropped[0]!.message).not.toContain("secret");
  });

  it("R-VER-5: what loses nothing goes silently — subagentRunId, the fixed role; timestamp and rawEvent are kept", () => {
    const r = downcast([
      ev.runStarted(),
      ev.reasoningMessageStart("m1", { subagentRunId: "sa1", timestamp: 5 }),
      ev.reasoningMessageContent("m1", "a", { subagentRunId: "sa1", rawEvent: { n: 1 } }),
      ev.reasoningMessageEnd("m1", { subagentRunId: "sa1" }),
    ]);
    expect(r.out.slice(1)).toEqual([
      { type: "THINKING_TEXT_MESSAGE_START", timestamp: 5 },
      { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "a", rawEvent: { n: 1 } },
      { type: "THINKING_TEXT_MESSAGE_END" },
    ]);
    expect(r.warnings.map((w) => w.code)).toEqual(["DOWNCAST_ID_DROPPED"]);
  });

  it("R-VER-3: a reasoning message outside any span stays outside — no THINKING_START is invented for it; other events pass as the same objects", () => {
    const text = ev.textChunk("a1", "Hi");
    const r = downcast([ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageEnd("m1"), text]);
    expect(r.out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "THINKING_TEXT_MESSAGE_START",
      "THINKING_TEXT_MESSAGE_END",
      "TEXT_MESSAGE_CHUNK",
    ]);
    expect(r.out[3]).toBe(text);
  });

  it("R-DEP-5 R-VER-21: interleaved reasoning messages cannot be expressed (0.x had one at a time): the stream fails with NOT_REPRESENTABLE; what came before stays delivered", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const values = {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageStart("m2"),
        d: ev.reasoningMessageContent("m1", "x"),
      };
      expectObservable(cold("abcd|", values).pipe(downcastToThinking({ onWarning: () => {} }))).toBe(
        "ab#",
        { a: values.a, b: { type: "THINKING_TEXT_MESSAGE_START" } },
        expect.objectContaining({
          code: "NOT_REPRESENTABLE",
          rule: "R-DEP-5",
          eventIndex: 2,
          eventType: "REASONING_MESSAGE_START",
          ids: ["m1", "m2"],
        }),
      );
    });
    const r = downcast([ev.runStarted(), ev.reasoningStart("s1"), ev.reasoningStart("s2")]);
    expect(r.error).toBeInstanceOf(DowncastError);
    expect(r.error).toMatchObject({
      name: "DowncastError",
      code: "NOT_REPRESENTABLE",
      eventIndex: 2,
      ids: ["s1", "s2"],
    });
    expect((r.error as Error).message).toBe(
      'NOT_REPRESENTABLE (R-DEP-5) at event #2 REASONING_START ["s1", "s2"]: a second span opened while one is open: THINKING_START has no id, so a 0.x consumer can follow one span at a time; the stream is not translated further (serializing would reorder events, R-VER-21).',
    );
  });

  it("R-DEP-5: one after the other is fine, across runs too — a run boundary ends whatever was open (R-RUN-11)", () => {
    const r = downcast([
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.runError(),
      ev.runStarted("r2"),
      ev.reasoningMessageStart("m2"),
      ev.reasoningMessageEnd("m2"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.out.filter((e) => e.type.startsWith("THINKING")).length).toBe(5);
  });

  it("R-STREAM-7: chunks must be expanded first (MALFORMED_EVENT naming the order); after expandChunks they translate", async () => {
    const r = downcast([ev.runStarted(), ev.reasoningChunk("m1", "x")]);
    expect(r.error).toBeInstanceOf(ReasoningProtocolError);
    expect(r.error).toMatchObject({ code: "MALFORMED_EVENT", rule: "R-STREAM-7", eventIndex: 1 });
    expect((r.error as Error).message).toContain("place it after expandChunks");
    const out = await lastValueFrom(
      from([ev.runStarted(), ev.reasoningChunk("m1", "x"), ev.runFinished()]).pipe(
        expandChunks(),
        downcastToThinking({ onWarning: () => {} }),
        toArray(),
      ),
    );
    expect(out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "THINKING_TEXT_MESSAGE_START",
      "THINKING_TEXT_MESSAGE_CONTENT",
      "THINKING_TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
  });

  it("R-REASON-9/10 R-PROC-4: unverified input is refused with a ReasoningProtocolError, never a TypeError", () => {
    expect(downcast([ev.runStarted(), ev.reasoningMessageContent("m1", "x")]).error).toMatchObject({
      code: "ORPHAN_CONTENT",
      rule: "R-REASON-9",
      eventIndex: 1,
      ids: ["m1"],
    });
    expect(downcast([ev.runStarted(), ev.reasoningEnd("s1")]).error).toMatchObject({
      code: "ORPHAN_END",
      rule: "R-REASON-10",
      eventIndex: 1,
    });
    expect(downcast([ev.runStarted(), { type: "REASONING_START", messageId: 7 }]).error).toMatchObject({
      code: "MALFORMED_EVENT",
      eventIndex: 1,
    });
    expect(
      downcast([
        ev.runStarted(),
        ev.reasoningMessageStart("m1"),
        { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: null },
      ]).error,
    ).toMatchObject({
      code: "MALFORMED_EVENT",
      eventIndex: 2,
    });
    expect(downcast([null as unknown as AguiEvent]).out).toEqual([null]);
  });

  it("R-VER-7 D-WARN: the losses cannot be silenced by `quiet` — a custom sink gets them, and the default sink prints them", () => {
    const sink = collectWarnings();
    from([ev.runStarted(), ev.reasoningStart("s1")])
      .pipe(downcastToThinking({ onWarning: sink.onWarning, quiet: true }))
      .subscribe();
    expect(sink.codes()).toEqual(["DOWNCAST_ID_DROPPED"]);
    const printed = jest.spyOn(console, "warn").mockImplementation(() => {});
    try {
      from([ev.runStarted(), ev.encryptedValue("message", "m1", "v")])
        .pipe(downcastToThinking({ quiet: true }))
        .subscribe();
      expect(printed).toHaveBeenCalledTimes(1);
      expect(String(printed.mock.calls[0]![0])).toContain("DOWNCAST_VALUE_DROPPED (R-REASON-19)");
    } finally {
      printed.mockRestore();
    }
  });
});
