import { expandChunks } from "../src/pipeline/operators";
import {
  ReasoningMessageChunkEventSchema,
  TextMessageChunkEventSchema,
  ToolCallChunkEventSchema,
} from "@ag-ui/core/schemas";
import fc from "fast-check";
import { createExpandStage } from "../src/chunks/expand-chunks";
import { ReasoningProtocolError } from "../src/core/errors";
import { runStage } from "../src/core/stage-operator";
import { NONE, type AguiEvent } from "../src/core/types";
import { ev } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

// ---------------------------------------------------------------------------------------------
// Harness

/**
 * Every token of a diagram gets its own 10-frame slot, so a synchronous group such as `(Ec)` (the
 * synthesized END and the event that triggered it) sits in the same frame as its source event:
 * `"a b c |"` and `"a (SC) (Ec) |"` line up token by token.
 */
const SLOT = 10;
function slots(diagram: string): string {
  const tokens = diagram.trim().split(/\s+/);
  return tokens
    .map((t, i) => {
      if (t.length >= SLOT) throw new Error(`marble token too long: ${t}`);
      return i < tokens.length - 1 ? `${t} ${SLOT - t.length}ms` : t;
    })
    .join(" ");
}

/**
 * Runs `source` through `expandChunks` and asserts the exact output (deep equality) and, always,
 * that the stage warned about nothing (it has no warnings: everything it rejects is an error).
 */
function expectExpansion(source: string, expected: string, values: Record<string, unknown>, error?: unknown): void {
  const sink = collectWarnings();
  createTestScheduler().run(({ cold, expectObservable }) => {
    expectObservable(
      cold(slots(source), values as Record<string, AguiEvent>).pipe(expandChunks({ onWarning: sink.onWarning })),
    ).toBe(slots(expected), values, error);
  });
  expect(sink.codes()).toEqual([]);
}

/** The error a marble `#` must carry: a ReasoningProtocolError with these fields. */
const failure = (code: string, rule: string, eventIndex: number, ids?: readonly string[]) =>
  expect.objectContaining({ name: "ReasoningProtocolError", code, rule, eventIndex, ...(ids ? { ids } : {}) });

/** Runs the pure step over an array and returns the error it threw (failing the test if none). */
function errorOf(events: readonly unknown[]): ReasoningProtocolError {
  const { error } = runStage(createExpandStage(), events as AguiEvent[]);
  expect(error).toBeInstanceOf(ReasoningProtocolError);
  return error as ReasoningProtocolError;
}

const sub = (subagentRunId: string) => ({ subagentRunId });

// One row per chunk family: how to spell its chunk and the events it expands into.
interface FamilyRow {
  readonly name: string;
  readonly chunkType: string;
  readonly idField: string;
  /** A chunk; with an id it also carries the tool name a first tool chunk needs. */
  chunk(id?: string, delta?: string, extra?: Record<string, unknown>): AguiEvent;
  start(id: string, extra?: Record<string, unknown>): AguiEvent;
  content(id: string, delta: string, extra?: Record<string, unknown>): AguiEvent;
  end(id: string, extra?: Record<string, unknown>): AguiEvent;
}
const FAMILIES: readonly FamilyRow[] = [
  {
    name: "text",
    chunkType: "TEXT_MESSAGE_CHUNK",
    idField: "messageId",
    chunk: (id, delta, extra) => ev.textChunk(id, delta, extra),
    start: (id, extra) => ev.textStart(id, "assistant", extra),
    content: (id, delta, extra) => ev.textContent(id, delta, extra),
    end: (id, extra) => ev.textEnd(id, extra),
  },
  {
    name: "tool",
    chunkType: "TOOL_CALL_CHUNK",
    idField: "toolCallId",
    chunk: (id, delta, extra) => ev.toolCallChunk(id, id === undefined ? undefined : "search", delta, extra),
    start: (id, extra) => ev.toolCallStart(id, "search", extra),
    content: (id, delta, extra) => ev.toolCallArgs(id, delta, extra),
    end: (id, extra) => ev.toolCallEnd(id, extra),
  },
  {
    name: "reasoning",
    chunkType: "REASONING_MESSAGE_CHUNK",
    idField: "messageId",
    chunk: (id, delta, extra) => ev.reasoningChunk(id, delta, extra),
    start: (id, extra) => ev.reasoningMessageStart(id, extra),
    content: (id, delta, extra) => ev.reasoningMessageContent(id, delta, extra),
    end: (id, extra) => ev.reasoningMessageEnd(id, extra),
  },
];
const [TEXT, TOOL, REASONING] = FAMILIES as [FamilyRow, FamilyRow, FamilyRow];

const activityDelta = (extra?: Record<string, unknown>): AguiEvent => ({
  type: "ACTIVITY_DELTA",
  messageId: "act1",
  activityType: "progress",
  patch: [],
  ...extra,
});
const subagentError = (subagentRunId: string): AguiEvent => ({
  type: "SUBAGENT_ERROR",
  subagentRunId,
  message: "failed",
});

// Shared letters: a = RUN_STARTED, z = RUN_FINISHED.
const a = ev.runStarted();
const z = ev.runFinished();

// ---------------------------------------------------------------------------------------------

describe("expandChunks — R-STREAM-7…18", () => {
  it("R-STREAM-7: chunks of all three families are expanded; nothing downstream sees a *_CHUNK", () => {
    expectExpansion("a b c d z |", "a (BC) (DEF) (GHI) (Jz) |", {
      a,
      b: ev.reasoningChunk("m1", "think"),
      c: ev.textChunk("t1", "say"),
      d: ev.toolCallChunk("tc1", "search", "{}"),
      z,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "think"),
      D: ev.reasoningMessageEnd("m1"),
      E: ev.textStart("t1"),
      F: ev.textContent("t1", "say"),
      G: ev.textEnd("t1"),
      H: ev.toolCallStart("tc1", "search"),
      I: ev.toolCallArgs("tc1", "{}"),
      J: ev.toolCallEnd("tc1"),
    });
  });

  it.each([
    ["delta: 5", ev.reasoningChunk("m1", undefined, { delta: 5 }), "/delta"],
    ["messageId: 7", ev.reasoningChunk(undefined, "x", { messageId: 7 }), "/messageId"],
  ])("R-STREAM-8: a malformed chunk (%s) is judged and rejected, never coerced", (_, bad, path) => {
    expectExpansion("a b |", "a #", { a, b: bad }, failure("MALFORMED_EVENT", "R-PROC-16", 1));
    expect(errorOf([a, bad]).message).toContain(path);
  });

  it("R-STREAM-9: an explicit event naming the id a chunk stream assembles ends the shorthand first", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: ev.reasoningMessageContent("m1", "y"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("R-STREAM-9: the explicit event ends the stream even when that stream is in another lane", () => {
    expectExpansion("a b c d e |", "a (BC) (DE) (Fd) (Ge) |", {
      a,
      b: ev.reasoningChunk("m1", "x", sub("A")),
      c: ev.toolCallChunk("tc1", "search", "{}", sub("B")),
      // Untagged: the parent's lane has nothing open, but each names an item a lane assembles.
      d: ev.reasoningMessageEnd("m1"),
      e: ev.toolCallResult("res1", "tc1", "done"),
      B: ev.reasoningMessageStart("m1", sub("A")),
      C: ev.reasoningMessageContent("m1", "x", sub("A")),
      D: ev.toolCallStart("tc1", "search", sub("B")),
      E: ev.toolCallArgs("tc1", "{}", sub("B")),
      F: ev.reasoningMessageEnd("m1", sub("A")),
      G: ev.toolCallEnd("tc1", sub("B")),
    });
  });

  it("R-STREAM-9 R-REASON-12: a span event sharing a chunk message's id closes only its own lane (spans are another namespace)", () => {
    expectExpansion("a b c d |", "a (BC) c D |", {
      a,
      b: ev.reasoningChunk("x", "t", sub("A")),
      c: ev.reasoningStart("x"),
      d: ev.reasoningChunk(undefined, "u", sub("A")),
      B: ev.reasoningMessageStart("x", sub("A")),
      C: ev.reasoningMessageContent("x", "t", sub("A")),
      D: ev.reasoningMessageContent("x", "u", sub("A")),
    });
  });

  it("R-STREAM-10: the first chunk opens its item with its id and opener fields (text role by omission = assistant, tool name, fixed reasoning role)", () => {
    expectExpansion("a b c d e |", "a (BC) (DEF) (GHI) (JK) |", {
      a,
      b: ev.textChunk("t1", "hi", { name: "bot" }),
      c: ev.textChunk("t2", "yo", { role: "user" }),
      d: ev.toolCallChunk("tc1", "search", "{", { parentMessageId: "t2" }),
      e: ev.reasoningChunk("m1"),
      B: ev.textStart("t1", "assistant", { name: "bot" }),
      C: ev.textContent("t1", "hi"),
      D: ev.textEnd("t1"),
      E: ev.textStart("t2", "user"),
      F: ev.textContent("t2", "yo"),
      G: ev.textEnd("t2"),
      H: ev.toolCallStart("tc1", "search", { parentMessageId: "t2" }),
      I: ev.toolCallArgs("tc1", "{"),
      J: ev.toolCallEnd("tc1"),
      K: ev.reasoningMessageStart("m1"),
    });
  });

  it.each(FAMILIES)(
    "R-STREAM-11 ($name): a first chunk without its id fails FIRST_CHUNK_WITHOUT_ID; no id is minted",
    (f) => {
      const b = f.chunk(undefined, "no item is open");
      expectExpansion("a b z |", "a #", { a, b, z }, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 1, []));
      expect(errorOf([a, b]).message).toContain(`First ${f.chunkType} must have a ${f.idField}`);
    },
  );

  it("R-STREAM-11: a first TOOL_CALL_CHUNK with an id but no toolCallName cannot open the call (fixture first-tool-chunk-missing-name-fatal)", () => {
    const b = ev.toolCallChunk("tc1", undefined, '{"q":"agui"}');
    expectExpansion("a b z |", "a #", { a, b, z }, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 1, ["tc1"]));
    expect(errorOf([a, b]).message).toContain("First TOOL_CALL_CHUNK must have a toolCallName");
  });

  it.each(FAMILIES)("R-STREAM-12 ($name): later chunks may omit the id and continue what is open", (f) => {
    expectExpansion("a b c d |", "a (BC) D E |", {
      a,
      b: f.chunk("i1", "x"),
      c: f.chunk(undefined, "y"),
      d: f.chunk(undefined, "z"),
      B: f.start("i1"),
      C: f.content("i1", "x"),
      D: f.content("i1", "y"),
      E: f.content("i1", "z"),
    });
  });

  it.each(FAMILIES)(
    "R-STREAM-13 ($name): a chunk naming a different id ends the previous item, then opens the new one",
    (f) => {
      expectExpansion("a b c d |", "a (BC) D (EFG) |", {
        a,
        b: f.chunk("i1", "x"),
        c: f.chunk("i1", "y"),
        d: f.chunk("i2", "z"),
        B: f.start("i1"),
        C: f.content("i1", "x"),
        D: f.content("i1", "y"),
        E: f.end("i1"),
        F: f.start("i2"),
        G: f.content("i2", "z"),
      });
    },
  );

  it.each([
    [
      "role user → assistant (fixture chunk-conflicting-role-fatal)",
      ev.textChunk("m1", "a", { role: "user" }),
      ev.textChunk("m1", "b", { role: "assistant" }),
      "role",
      "m1",
      ev.textStart("m1", "user"),
      ev.textContent("m1", "a"),
    ],
    [
      "role by omission (assistant) → user",
      ev.textChunk("m1", "a"),
      ev.textChunk(undefined, "b", { role: "user" }),
      "role",
      "m1",
      ev.textStart("m1"),
      ev.textContent("m1", "a"),
    ],
    [
      "name absent → named",
      ev.textChunk("m1", "a"),
      ev.textChunk(undefined, "b", { name: "bob" }),
      "name",
      "m1",
      ev.textStart("m1"),
      ev.textContent("m1", "a"),
    ],
    [
      "name bob → ann",
      ev.textChunk("m1", "a", { name: "bob" }),
      ev.textChunk("m1", "b", { name: "ann" }),
      "name",
      "m1",
      ev.textStart("m1", "assistant", { name: "bob" }),
      ev.textContent("m1", "a"),
    ],
    [
      "toolCallName search → delete (fixture chunk-conflicting-tool-name-fatal)",
      ev.toolCallChunk("tc1", "search", "{"),
      ev.toolCallChunk("tc1", "delete", "}"),
      "toolCallName",
      "tc1",
      ev.toolCallStart("tc1", "search"),
      ev.toolCallArgs("tc1", "{"),
    ],
    [
      "parentMessageId m1 → m2",
      ev.toolCallChunk("tc1", "search", "{", { parentMessageId: "m1" }),
      ev.toolCallChunk(undefined, undefined, "}", { parentMessageId: "m2" }),
      "parentMessageId",
      "tc1",
      ev.toolCallStart("tc1", "search", { parentMessageId: "m1" }),
      ev.toolCallArgs("tc1", "{"),
    ],
  ])(
    "R-STREAM-14: a continuation repeating an opener field with another value fails (%s)",
    (_, first, second, field, id, B, C) => {
      expectExpansion(
        "a b c z |",
        "a (BC) #",
        { a, b: first, c: second, z, B, C },
        failure("CONFLICTING_CHUNK_FIELD", "R-STREAM-14", 2, [id]),
      );
      expect(errorOf([a, first, second]).message).toContain(`does not match the open stream's ${field}`);
    },
  );

  it("R-STREAM-14: repeating an opener field with the same value is accepted (fixture chunk-repeat-identical-accepted)", () => {
    expectExpansion("a b c d e z |", "a (BC) D (EFG) H (Iz) |", {
      a,
      b: ev.textChunk("m1", "Searching.", { role: "user", name: "ann" }),
      c: ev.textChunk(undefined, "", { role: "user", name: "ann" }),
      d: ev.toolCallChunk("tc1", "search", '{"q":', { parentMessageId: "m1" }),
      e: ev.toolCallChunk("tc1", "search", '"agui"}', { parentMessageId: "m1" }),
      z,
      B: ev.textStart("m1", "user", { name: "ann" }),
      C: ev.textContent("m1", "Searching."),
      D: ev.textContent("m1", ""),
      E: ev.textEnd("m1"),
      F: ev.toolCallStart("tc1", "search", { parentMessageId: "m1" }),
      G: ev.toolCallArgs("tc1", '{"q":'),
      H: ev.toolCallArgs("tc1", '"agui"}'),
      I: ev.toolCallEnd("tc1"),
    });
  });

  it.each([
    ["TEXT_MESSAGE_START", ev.textStart("t9")],
    ["TEXT_MESSAGE_CONTENT", ev.textContent("t9", "x")],
    ["TEXT_MESSAGE_END", ev.textEnd("t9")],
    ["TOOL_CALL_START", ev.toolCallStart("tc9")],
    ["TOOL_CALL_ARGS", ev.toolCallArgs("tc9", "{}")],
    ["TOOL_CALL_END", ev.toolCallEnd("tc9")],
    ["TOOL_CALL_RESULT", ev.toolCallResult("res9", "tc9", "ok")],
    ["STEP_STARTED", ev.stepStarted("plan")],
    ["STEP_FINISHED", ev.stepFinished("plan")],
    ["STATE_SNAPSHOT", ev.stateSnapshot({ k: 1 })],
    ["STATE_DELTA", ev.stateDelta([])],
    ["CUSTOM", ev.custom()],
    ["REASONING_START", ev.reasoningStart("s9")],
    ["REASONING_END", ev.reasoningEnd("s9")],
    ["REASONING_MESSAGE_START", ev.reasoningMessageStart("m9")],
    ["REASONING_MESSAGE_CONTENT", ev.reasoningMessageContent("m9", "x")],
    ["REASONING_MESSAGE_END", ev.reasoningMessageEnd("m9")],
  ])("R-STREAM-15 (b): %s in the lane synthesizes the END immediately before it", (_, trigger) => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: trigger,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it.each([
    ["RAW", ev.raw({ kind: "heartbeat" })],
    ["ACTIVITY_SNAPSHOT", ev.activitySnapshot("act1")],
    ["ACTIVITY_DELTA", activityDelta()],
    ["REASONING_ENCRYPTED_VALUE", ev.encryptedValue("message", "m1", "opaque")],
    ["SUBAGENT_STARTED", ev.subagentStarted("A")],
  ])("R-STREAM-15 (b): %s stands aside: no END, the id-less chunk after it continues", (_, aside) => {
    expectExpansion("a b c d z |", "a (BC) c D (Ez) |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: aside,
      d: ev.reasoningChunk(undefined, "y"),
      z,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
      D: ev.reasoningMessageContent("m1", "y"),
      E: ev.reasoningMessageEnd("m1"),
    });
  });

  it("R-STREAM-15 (b): a step/state/custom event tagged with a subagent closes that lane only", () => {
    expectExpansion("a b c d e |", "a (BC) (DE) (Fd) (Ge) |", {
      a,
      b: ev.reasoningChunk("p1", "x"),
      c: ev.textChunk("t1", "y", sub("A")),
      d: ev.custom("note", null, sub("A")),
      e: ev.stepStarted("plan"),
      B: ev.reasoningMessageStart("p1"),
      C: ev.reasoningMessageContent("p1", "x"),
      D: ev.textStart("t1", "assistant", sub("A")),
      E: ev.textContent("t1", "y", sub("A")),
      F: ev.textEnd("t1", sub("A")),
      G: ev.reasoningMessageEnd("p1"),
    });
  });

  it.each([
    ["RUN_STARTED", ev.runStarted("r2")],
    ["RUN_FINISHED", ev.runFinished()],
    ["RUN_ERROR", ev.runError()],
    ["MESSAGES_SNAPSHOT", ev.messagesSnapshot([])],
  ])("R-STREAM-15 (c): %s closes every lane, in the order the streams opened", (_, runLevel) => {
    expectExpansion("a b c d e |", "a (BC) (DE) (FG) (HIJe) |", {
      a,
      b: ev.textChunk("t1", "x", sub("A")),
      c: ev.reasoningChunk("m1", "y"),
      d: ev.toolCallChunk("tc1", "search", "{}", sub("B")),
      e: runLevel,
      B: ev.textStart("t1", "assistant", sub("A")),
      C: ev.textContent("t1", "x", sub("A")),
      D: ev.reasoningMessageStart("m1"),
      E: ev.reasoningMessageContent("m1", "y"),
      F: ev.toolCallStart("tc1", "search", sub("B")),
      G: ev.toolCallArgs("tc1", "{}", sub("B")),
      H: ev.textEnd("t1", sub("A")),
      I: ev.reasoningMessageEnd("m1"),
      J: ev.toolCallEnd("tc1", sub("B")),
    });
  });

  it("R-STREAM-16: a tagged id-less continuation goes to its own lane even when the parent has a stream of its kind", () => {
    expectExpansion("a b c d |", "a (BC) (DE) F |", {
      a,
      b: ev.reasoningChunk("p1", "x"),
      c: ev.reasoningChunk("s1", "y", sub("A")),
      d: ev.reasoningChunk(undefined, "z", sub("A")),
      B: ev.reasoningMessageStart("p1"),
      C: ev.reasoningMessageContent("p1", "x"),
      D: ev.reasoningMessageStart("s1", sub("A")),
      E: ev.reasoningMessageContent("s1", "y", sub("A")),
      F: ev.reasoningMessageContent("s1", "z", sub("A")),
    });
  });

  it("R-STREAM-16: an untagged id-less continuation continues the parent's stream of its kind when there is one", () => {
    expectExpansion("a b c d |", "a (BC) (DE) F |", {
      a,
      b: ev.reasoningChunk("s1", "y", sub("A")),
      c: ev.reasoningChunk("p1", "x"),
      d: ev.reasoningChunk(undefined, "z"),
      B: ev.reasoningMessageStart("s1", sub("A")),
      C: ev.reasoningMessageContent("s1", "y", sub("A")),
      D: ev.reasoningMessageStart("p1"),
      E: ev.reasoningMessageContent("p1", "x"),
      F: ev.reasoningMessageContent("p1", "z"),
    });
  });

  it("R-STREAM-16: with no parent stream of its kind, it continues the sole subagent stream of its kind (attributed to that subagent)", () => {
    expectExpansion("a b c d e |", "a (BC) (DE) F G |", {
      a,
      b: ev.textChunk("t1", "parent text"), // the parent's stream is of another kind
      c: ev.reasoningChunk("s1", "y", sub("A")),
      d: ev.reasoningChunk(undefined, "z"),
      e: ev.textChunk(undefined, "more"),
      B: ev.textStart("t1"),
      C: ev.textContent("t1", "parent text"),
      D: ev.reasoningMessageStart("s1", sub("A")),
      E: ev.reasoningMessageContent("s1", "y", sub("A")),
      F: ev.reasoningMessageContent("s1", "z", sub("A")),
      G: ev.textContent("t1", "more"),
    });
  });

  it("R-STREAM-16: a tagged id-less chunk whose lane holds a stream of another kind is a first chunk without an id", () => {
    const values = {
      a,
      b: ev.textChunk("t1", "x", sub("A")),
      c: ev.reasoningChunk(undefined, "y", sub("A")),
      B: ev.textStart("t1", "assistant", sub("A")),
      C: ev.textContent("t1", "x", sub("A")),
    };
    expectExpansion("a b c |", "a (BC) #", values, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 2, ["A"]));
  });

  it("R-STREAM-17: a subagent's terminal closes the chunk stream of its own lane before it (fixture subagent-terminal-closes-open-chunk-stream)", () => {
    expectExpansion("a s b c f z |", "a s (BC) D (Ef) z |", {
      a,
      s: ev.subagentStarted("S1"),
      b: ev.textChunk("m-1", "half ", { role: "assistant", ...sub("S1") }),
      c: ev.textChunk(undefined, "assembled", sub("S1")),
      f: ev.subagentFinished("S1"),
      z,
      B: ev.textStart("m-1", "assistant", sub("S1")),
      C: ev.textContent("m-1", "half ", sub("S1")),
      D: ev.textContent("m-1", "assembled", sub("S1")),
      E: ev.textEnd("m-1", sub("S1")),
    });
  });

  it("R-STREAM-17: SUBAGENT_ERROR closes that subagent's lane too", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.toolCallChunk("tc1", "search", "{", sub("S1")),
      c: subagentError("S1"),
      B: ev.toolCallStart("tc1", "search", sub("S1")),
      C: ev.toolCallArgs("tc1", "{", sub("S1")),
      D: ev.toolCallEnd("tc1", sub("S1")),
    });
  });

  it("R-STREAM-18: a chunk's metadata applies to every event synthesized from it", () => {
    const meta = { "vendor.usage": { tokens: 3 } };
    expectExpansion("a b c |", "a (BC) D |", {
      a,
      b: ev.reasoningChunk("m1", "x", { metadata: meta }),
      c: ev.reasoningChunk(undefined, "y", { metadata: { "vendor.k": null } }),
      B: ev.reasoningMessageStart("m1", { metadata: meta }),
      C: ev.reasoningMessageContent("m1", "x", { metadata: meta }),
      D: ev.reasoningMessageContent("m1", "y", { metadata: { "vendor.k": null } }),
    });
  });
});

describe("expandChunks — processing, passthrough, subagents, activity", () => {
  it("R-PROC-15: synthesized START/CONTENT carry metadata, rawEvent and subagentRunId but never the chunk's timestamp; the END only id and owner", () => {
    const raw = { provider: "x", seq: 1 };
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.toolCallChunk("tc1", "search", "{}", {
        timestamp: 1700000000000,
        rawEvent: raw,
        metadata: { k: 1 },
        ...sub("A"),
      }),
      c: ev.custom("c", null, sub("A")),
      B: ev.toolCallStart("tc1", "search", { rawEvent: raw, metadata: { k: 1 }, ...sub("A") }),
      C: ev.toolCallArgs("tc1", "{}", { rawEvent: raw, metadata: { k: 1 }, ...sub("A") }),
      D: ev.toolCallEnd("tc1", sub("A")),
    });
  });

  it.each([
    ["delta: null", TEXT, { delta: null }, "/delta"],
    ["delta: 5", REASONING, { delta: 5 }, "/delta"],
    ["messageId: 7", REASONING, { messageId: 7 }, "/messageId"],
    ["messageId: null", TEXT, { messageId: null }, "/messageId"],
    ["toolCallId: 7", TOOL, { toolCallId: 7 }, "/toolCallId"],
    ["subagentRunId: null", REASONING, { subagentRunId: null }, "/subagentRunId"],
    ["subagentRunId: 3", TOOL, { subagentRunId: 3 }, "/subagentRunId"],
    ["metadata: null", REASONING, { metadata: null }, "/metadata"],
    ["metadata: []", TEXT, { metadata: [] }, "/metadata"],
    ["rawEvent: null", REASONING, { rawEvent: null }, "/rawEvent"],
    ["timestamp: 1.5", REASONING, { timestamp: 1.5 }, "/timestamp"],
    ['timestamp: "1"', TOOL, { timestamp: "1" }, "/timestamp"],
    ["timestamp: 2^53", TEXT, { timestamp: 2 ** 53 }, "/timestamp"],
    ['role: "critic"', TEXT, { role: "critic" }, "/role"],
    ["role: 5", TEXT, { role: 5 }, "/role"],
    ["name: 5", TEXT, { name: 5 }, "/name"],
    ["toolCallName: 5", TOOL, { toolCallName: 5 }, "/toolCallName"],
    ["parentMessageId: null", TOOL, { parentMessageId: null }, "/parentMessageId"],
  ])(
    "R-PROC-16: a chunk with %s fails MALFORMED_EVENT naming the field, on a first chunk and on a continuation",
    (_, f, bad, path) => {
      const first = f.chunk("i1", "x", bad);
      expectExpansion("a b |", "a #", { a, b: first }, failure("MALFORMED_EVENT", "R-PROC-16", 1));
      const continuation = f.chunk(undefined, "y", bad);
      expectExpansion(
        "a b c |",
        "a (BC) #",
        { a, b: f.chunk("i1", "x"), c: continuation, B: f.start("i1"), C: f.content("i1", "x") },
        failure("MALFORMED_EVENT", "R-PROC-16", 2),
      );
      expect(errorOf([a, continuation]).message).toContain(path);
    },
  );

  it("R-PROC-16: the chunk check accepts exactly the described field values the 1.0 zod schemas accept", () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.string({ maxLength: 3 }),
      fc.constantFrom("assistant", "user", "system", "developer", "critic"),
      fc.integer(),
      fc.double(),
      fc.constant(2 ** 53),
      fc.boolean(),
      fc.constant([]),
      fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 1 }),
    );
    const rows = [
      { f: TEXT, schema: TextMessageChunkEventSchema, fields: ["messageId", "delta", "role", "name"] },
      { f: TOOL, schema: ToolCallChunkEventSchema, fields: ["toolCallId", "toolCallName", "parentMessageId", "delta"] },
      { f: REASONING, schema: ReasoningMessageChunkEventSchema, fields: ["messageId", "delta"] },
    ];
    const common = ["timestamp", "rawEvent", "metadata", "subagentRunId"];
    for (const { f, schema, fields } of rows) {
      fc.assert(
        fc.property(
          fc.array(value, { minLength: fields.length + common.length, maxLength: fields.length + common.length }),
          (values) => {
            const chunk: Record<string, unknown> = { type: f.chunkType };
            [...fields, ...common].forEach((k, i) => {
              if (values[i] !== undefined) chunk[k] = values[i];
            });
            const accepted = schema.safeParse(chunk).success;
            const { error } = runStage(createExpandStage(), [chunk as AguiEvent]);
            const malformed = error instanceof ReasoningProtocolError && error.code === "MALFORMED_EVENT";
            expect(malformed).toBe(!accepted);
          },
        ),
        { numRuns: 400 },
      );
    }
  });

  it("R-PASS-1: CUSTOM ends the open chunk stream, so an id-less chunk after it fails (fixture custom-closes-chunk-stream-fatal)", () => {
    const values = {
      a,
      b: ev.textChunk("m1", "Half ", { role: "assistant" }),
      c: ev.custom("note", { closes: true }),
      d: ev.textChunk(undefined, "and half."),
      z,
      B: ev.textStart("m1"),
      C: ev.textContent("m1", "Half "),
      D: ev.textEnd("m1"),
    };
    expectExpansion("a b c d z |", "a (BC) (Dc) #", values, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 3));
    expect(errorOf([a, values.b, values.c, values.d]).message).toContain(
      "First TEXT_MESSAGE_CHUNK must have a messageId",
    );
  });

  it("R-PASS-1: RAW stands aside, so the id-less chunk after it continues (fixture raw-does-not-close-chunk-stream)", () => {
    expectExpansion("a b c d z |", "a (BC) c D (Ez) |", {
      a,
      b: ev.textChunk("m1", "Half ", { role: "assistant" }),
      c: ev.raw({ provider: "raw-aside", kind: "heartbeat" }),
      d: ev.textChunk(undefined, "and half."),
      z,
      B: ev.textStart("m1"),
      C: ev.textContent("m1", "Half "),
      D: ev.textContent("m1", "and half."),
      E: ev.textEnd("m1"),
    });
  });

  it("R-SUB-2: a chunk naming an id open in another lane with a different tag fails ATTRIBUTION_MISMATCH", () => {
    const values = {
      a,
      b: ev.reasoningChunk("m1", "x", sub("A")),
      c: ev.reasoningChunk("m1", "y", sub("B")),
      B: ev.reasoningMessageStart("m1", sub("A")),
      C: ev.reasoningMessageContent("m1", "x", sub("A")),
    };
    expectExpansion("a b c |", "a (BC) #", values, failure("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["m1", "B", "A"]));
  });

  it("R-SUB-2: a tagged chunk naming the parent's open item is a mismatch too", () => {
    const values = {
      a,
      b: ev.textChunk("t1", "x"),
      c: ev.textChunk("t1", "y", sub("A")),
      B: ev.textStart("t1"),
      C: ev.textContent("t1", "x"),
    };
    expectExpansion("a b c |", "a (BC) #", values, failure("ATTRIBUTION_MISMATCH", "R-SUB-2", 2, ["t1", "A"]));
  });

  it("R-SUB-2: an untagged chunk naming a subagent's open item continues it (not a disagreement), attributed to the owner", () => {
    expectExpansion("a b c |", "a (BC) D |", {
      a,
      b: ev.toolCallChunk("tc1", "search", "{", sub("A")),
      c: ev.toolCallChunk("tc1", undefined, "}"),
      B: ev.toolCallStart("tc1", "search", sub("A")),
      C: ev.toolCallArgs("tc1", "{", sub("A")),
      D: ev.toolCallArgs("tc1", "}", sub("A")),
    });
  });

  it("R-SUB-3: parallel subagents keep separate lanes; one's terminal does not close the other's stream", () => {
    expectExpansion("a b c d e f g |", "a (BC) (DE) F G (Hf) I |", {
      a,
      b: ev.reasoningChunk("ma", "1", sub("A")),
      c: ev.reasoningChunk("mb", "2", sub("B")),
      d: ev.reasoningChunk(undefined, "3", sub("A")),
      e: ev.reasoningChunk("mb", "4", sub("B")),
      f: ev.subagentFinished("A"),
      g: ev.reasoningChunk(undefined, "5"), // only B's stream is left: the sole one of its kind
      B: ev.reasoningMessageStart("ma", sub("A")),
      C: ev.reasoningMessageContent("ma", "1", sub("A")),
      D: ev.reasoningMessageStart("mb", sub("B")),
      E: ev.reasoningMessageContent("mb", "2", sub("B")),
      F: ev.reasoningMessageContent("ma", "3", sub("A")),
      G: ev.reasoningMessageContent("mb", "4", sub("B")),
      H: ev.reasoningMessageEnd("ma", sub("A")),
      I: ev.reasoningMessageContent("mb", "5", sub("B")),
    });
  });

  it("R-ACT-4: ACTIVITY_SNAPSHOT and ACTIVITY_DELTA stand aside from chunk assembly", () => {
    expectExpansion("a b c d e |", "a (BC) c d E |", {
      a,
      b: ev.textChunk("t1", "x"),
      c: ev.activitySnapshot("act1"),
      d: activityDelta(),
      e: ev.textChunk(undefined, "y"),
      B: ev.textStart("t1"),
      C: ev.textContent("t1", "x"),
      E: ev.textContent("t1", "y"),
    });
  });

  it("R-EVT-12: explicit events pass through as the same object; a continuation keeps the same state object", () => {
    const stage = createExpandStage();
    const state = stage.init();
    const custom = ev.custom();
    const r1 = stage.step(state, custom, { index: 0 });
    expect(r1.out).toHaveLength(1);
    expect(r1.out[0]).toBe(custom);
    expect(r1.state).toBe(state);
    const r2 = stage.step(r1.state, ev.reasoningChunk("m1", "x"), { index: 1 });
    const r3 = stage.step(r2.state, ev.reasoningChunk(undefined, "y"), { index: 2 });
    expect(r3.state).toBe(state);
    expect(r3.warnings).toBe(NONE);
    // A bare continuation (no delta, metadata or rawEvent) emits nothing and allocates no output.
    const r4 = stage.step(r3.state, ev.reasoningChunk("m1"), { index: 3 });
    expect(r4.out).toBe(NONE);
    const raw = ev.raw();
    expect(stage.step(r4.state, raw, { index: 4 }).out[0]).toBe(raw);
  });

  it.each([
    ["null", null],
    ["a number", 5],
    ["a string", "TEXT_MESSAGE_CHUNK"],
    ["an array", []],
    ["an object without type", { messageId: "m1" }],
    ["an object with a numeric type", { type: 5 }],
  ])("R-PROC-4: %s as an event fails MALFORMED_EVENT, never a TypeError", (_, bad) => {
    expectExpansion("a b |", "a #", { a, b: bad }, failure("MALFORMED_EVENT", "R-PROC-4", 1));
  });

  it.each([
    ["a SUBAGENT_FINISHED without subagentRunId", { type: "SUBAGENT_FINISHED" }],
    ["a CUSTOM with subagentRunId: 5", ev.custom("c", null, { subagentRunId: 5 })],
    ["a STEP_STARTED with subagentRunId: null", ev.stepStarted("s", { subagentRunId: null })],
  ])("R-PROC-4: %s cannot be routed to a lane and fails MALFORMED_EVENT", (_, bad) => {
    const values = {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: bad,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
    };
    expectExpansion("a b c |", "a (BC) #", values, failure("MALFORMED_EVENT", "R-PROC-4", 2));
  });

  it("D-REDACT: errors name index, type, ids and rule, never a delta; long ids are truncated", () => {
    const secret = "SECRET-REASONING-TEXT";
    const longId = "x".repeat(500);
    const errors = [
      errorOf([ev.reasoningChunk(undefined, secret)]),
      errorOf([ev.textChunk("m1", secret, { role: "user" }), ev.textChunk("m1", secret, { role: "system" })]),
      errorOf([ev.reasoningChunk(longId, secret, sub("A")), ev.reasoningChunk(longId, secret, sub("B"))]),
      errorOf([
        ev.reasoningChunk("m1", secret, sub("A")),
        ev.reasoningChunk("m2", secret, sub("B")),
        ev.reasoningChunk(undefined, secret),
      ]),
      errorOf([ev.reasoningChunk("m1", secret, { metadata: null })]),
    ];
    expect(errors.map((e) => e.code)).toEqual([
      "FIRST_CHUNK_WITHOUT_ID",
      "CONFLICTING_CHUNK_FIELD",
      "ATTRIBUTION_MISMATCH",
      "AMBIGUOUS_CONTINUATION",
      "MALFORMED_EVENT",
    ]);
    for (const e of errors) {
      expect(e.message).not.toContain(secret);
      expect(JSON.stringify(e)).not.toContain(secret);
      expect(e.message).toContain(e.eventType);
      expect(e.message).toContain(`at event #${e.eventIndex}`);
      expect(e.event).toBeDefined(); // the offending event rides along for programs, not enumerable
    }
    expect(errors[2]!.message).not.toContain(longId);
    expect(errors[2]!.ids).toEqual([longId, "B", "A"]);
  });
});

describe("expandChunks — decisions", () => {
  it('D-META-CHUNK: a metadata-only continuation synthesizes CONTENT with delta "" carrying the metadata', () => {
    expectExpansion("a b c z |", "a (BC) D (Ez) |", {
      a,
      b: ev.textChunk("t1", "answer"),
      c: ev.textChunk(undefined, undefined, { metadata: { "vendor.finish": "stop" } }),
      z,
      B: ev.textStart("t1"),
      C: ev.textContent("t1", "answer"),
      D: ev.textContent("t1", "", { metadata: { "vendor.finish": "stop" } }),
      E: ev.textEnd("t1"),
    });
  });

  it('D-META-CHUNK: a continuation carrying only a rawEvent still delivers it, on a CONTENT with delta ""', () => {
    expectExpansion("a b c |", "a (BC) D |", {
      a,
      b: ev.toolCallChunk("tc1", "search", "{}"),
      c: ev.toolCallChunk(undefined, undefined, undefined, { rawEvent: { seq: 2 } }),
      B: ev.toolCallStart("tc1", "search"),
      C: ev.toolCallArgs("tc1", "{}"),
      D: ev.toolCallArgs("tc1", "", { rawEvent: { seq: 2 } }),
    });
  });

  it("D-SEED-001: an empty delta is content and does not close (1.0, not the older concepts page)", () => {
    expectExpansion("a b c d |", "a (BC) D E |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: ev.reasoningChunk("m1", ""),
      d: ev.reasoningChunk(undefined, "y"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
      D: ev.reasoningMessageContent("m1", ""),
      E: ev.reasoningMessageContent("m1", "y"),
    });
  });

  it("D-SCOPE-FAMILIES: one lane holds one stream of any family: a chunk of another family closes it", () => {
    expectExpansion("a b c d |", "a (BC) (DEF) (GHI) |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: ev.toolCallChunk("tc1", "search", "{}"),
      d: ev.textChunk("t1", "y"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
      D: ev.reasoningMessageEnd("m1"),
      E: ev.toolCallStart("tc1", "search"),
      F: ev.toolCallArgs("tc1", "{}"),
      G: ev.toolCallEnd("tc1"),
      H: ev.textStart("t1"),
      I: ev.textContent("t1", "y"),
    });
  });

  it.each(FAMILIES)("D-SCOPE-FAMILIES ($name): CUSTOM closes the stream, RAW does not", (f) => {
    expectExpansion("a b c d e |", "a (BC) c D (Ee) |", {
      a,
      b: f.chunk("i1", "x"),
      c: ev.raw(),
      d: f.chunk(undefined, "y"),
      e: ev.custom(),
      B: f.start("i1"),
      C: f.content("i1", "x"),
      D: f.content("i1", "y"),
      E: f.end("i1"),
    });
    const values = {
      a,
      b: f.chunk("i1", "x"),
      c: ev.custom(),
      d: f.chunk(undefined, "y"),
      B: f.start("i1"),
      C: f.content("i1", "x"),
      D: f.end("i1"),
    };
    expectExpansion("a b c d |", "a (BC) (Dc) #", values, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 3));
  });

  it.each(FAMILIES)(
    "D-SCOPE-FAMILIES ($name): lanes — a subagent's stream survives the parent's close triggers and ends at its terminal",
    (f) => {
      expectExpansion("a b c d e z |", "a (BC) c D (Ee) z |", {
        a,
        b: f.chunk("i1", "x", sub("A")),
        c: ev.custom(), // the parent's lane: nothing open there
        d: f.chunk(undefined, "y"), // untagged: the sole open stream of its kind
        e: ev.subagentFinished("A"),
        z,
        B: f.start("i1", sub("A")),
        C: f.content("i1", "x", sub("A")),
        D: f.content("i1", "y", sub("A")),
        E: f.end("i1", sub("A")),
      });
    },
  );

  it("D-TRUNC: no END is synthesized when the source completes with a stream open", () => {
    expectExpansion("a b |", "a (BC) |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
    });
    const stage = createExpandStage();
    const { out, state } = runStage(stage, [ev.reasoningChunk("m1", "x")]);
    expect(out.map((e) => e.type)).toEqual(["REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT"]);
    const finished = stage.finish!(state, { index: 1 });
    expect(finished.out).toEqual([]);
    expect(finished.state.lanes.size).toBe(1);
  });
});

describe("expandChunks — edge cases #35-#64", () => {
  it("#35 R-STREAM-10/11: an id-less first REASONING_MESSAGE_CHUNK fails; never mint an id", () => {
    const b = ev.reasoningChunk(undefined, "x");
    expectExpansion("a b |", "a #", { a, b }, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 1));
  });

  it('#36 R-STREAM-7/12/15c: RCH(m1,"a") RCH(,"b") RF → START, CONTENT a, CONTENT b, END, RF (fixture chunk-expansion-assembles)', () => {
    expectExpansion("a b c z |", "a (BC) D (Ez) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningChunk(undefined, "b"),
      z,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageContent("m1", "b"),
      E: ev.reasoningMessageEnd("m1"),
    });
  });

  it('#37 R-SCHEMA-5: an empty first delta gives START + CONTENT "" and does not close', () => {
    expectExpansion("a b c |", "a (BC) D |", {
      a,
      b: ev.reasoningChunk("m1", ""),
      c: ev.reasoningChunk(undefined, "x"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", ""),
      D: ev.reasoningMessageContent("m1", "x"),
    });
  });

  it("#38 R-SCHEMA-5: a first chunk without delta or metadata gives START only; the message stays open", () => {
    expectExpansion("a b c |", "a B C |", {
      a,
      b: ev.reasoningChunk("m1"),
      c: ev.reasoningChunk(undefined, "x"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
    });
  });

  it("#39 R-STREAM-18: a metadata-only continuation is legal: no content added, the metadata reaches the message", () => {
    expectExpansion("a b c |", "a (BC) D |", {
      a,
      b: ev.reasoningChunk("m1", "x"),
      c: ev.reasoningChunk(undefined, undefined, { metadata: { finish: "stop" } }),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
      D: ev.reasoningMessageContent("m1", "", { metadata: { finish: "stop" } }),
    });
  });

  it("#40 R-STREAM-13: a chunk repeating the open id continues it", () => {
    expectExpansion("a b c |", "a (BC) D |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningChunk("m1", "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageContent("m1", "b"),
    });
  });

  it("#41 R-STREAM-13/15a: RCH(m1) RCH(m2) → END m1, START m2, CONTENT m2", () => {
    expectExpansion("a b c |", "a (BC) (DEF) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningChunk("m2", "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
      E: ev.reasoningMessageStart("m2"),
      F: ev.reasoningMessageContent("m2", "b"),
    });
  });

  it("#42 R-STREAM-15b: TEXT_MESSAGE_START after a reasoning chunk gets the END immediately before it", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.textStart("t1"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#43 R-STREAM-15b: TEXT_MESSAGE_CHUNK after a reasoning chunk → END m1, then text START/CONTENT", () => {
    expectExpansion("a b c |", "a (BC) (DEF) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.textChunk("t1", "x"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
      E: ev.textStart("t1"),
      F: ev.textContent("t1", "x"),
    });
  });

  it("#44 R-STREAM-15b: REASONING_END after a chunk → END m1 first, then REASONING_END (its span is the verifier's to judge)", () => {
    expectExpansion("a s b c |", "a s (BC) (Dc) |", {
      a,
      s: ev.reasoningStart("s1"),
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningEnd("s1"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#45 R-STREAM-11/15b: chunk, REASONING_START, id-less chunk → END, REASONING_START, then FIRST_CHUNK_WITHOUT_ID", () => {
    const values = {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningStart("s2"),
      d: ev.reasoningChunk(undefined, "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    };
    expectExpansion("a b c d |", "a (BC) (Dc) #", values, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 3));
  });

  it("#46 R-STREAM-9: chunk then explicit REASONING_MESSAGE_END(m1) → synthesized END first; the explicit one reaches the verifier (orphan)", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningMessageEnd("m1"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#47 R-STREAM-9: chunk then explicit REASONING_MESSAGE_CONTENT(m1) → synthesized END first, then the (orphan) CONTENT", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningMessageContent("m1", "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#48 R-STREAM-9: chunk then explicit REASONING_MESSAGE_START(m1) → synthesized END, then the START (a reopen for the verifier)", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningMessageStart("m1"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#49 R-STREAM-9: an explicit open message is not a chunk stream: RCH(m1) synthesizes a START the verifier will reject", () => {
    expectExpansion("a b c |", "a b (BC) |", {
      a,
      b: ev.reasoningMessageStart("m1"),
      c: ev.reasoningChunk("m1", "x"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "x"),
    });
  });

  it("#50 R-STREAM-11/16: explicit REASONING_MESSAGE_START(m1) open, then an id-less chunk → FIRST_CHUNK_WITHOUT_ID", () => {
    const values = { a, b: ev.reasoningMessageStart("m1"), c: ev.reasoningChunk(undefined, "x") };
    expectExpansion("a b c |", "a b #", values, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 2));
  });

  it("#51 R-STREAM-15b R-REASON-21: REASONING_ENCRYPTED_VALUE stands aside; the next id-less chunk continues m1", () => {
    expectExpansion("a b c d |", "a (BC) c D |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.encryptedValue("message", "m1", "opaque"),
      d: ev.reasoningChunk(undefined, "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageContent("m1", "b"),
    });
  });

  it.each([
    ["RAW", ev.raw()],
    ["ACTIVITY_SNAPSHOT", ev.activitySnapshot("act1")],
    ["ACTIVITY_DELTA", activityDelta()],
  ])("#52 R-STREAM-15b: %s does not close; content continues", (_, aside) => {
    expectExpansion("a b c d |", "a (BC) c D |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: aside,
      d: ev.reasoningChunk(undefined, "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageContent("m1", "b"),
    });
  });

  it("#53 R-PASS-1: CUSTOM closes the reasoning chunk stream; the id-less chunk after it fails", () => {
    const values = {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.custom(),
      d: ev.reasoningChunk(undefined, "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    };
    expectExpansion("a b c d |", "a (BC) (Dc) #", values, failure("FIRST_CHUNK_WITHOUT_ID", "R-STREAM-11", 3));
  });

  it.each([
    ["STATE_DELTA", ev.stateDelta([{ op: "add", path: "/k", value: 1 }])],
    ["STATE_SNAPSHOT", ev.stateSnapshot({})],
    ["STEP_STARTED", ev.stepStarted("plan")],
    ["TOOL_CALL_START", ev.toolCallStart("tc1")],
    ["TOOL_CALL_ARGS", ev.toolCallArgs("tc1", "{")],
    ["TOOL_CALL_END", ev.toolCallEnd("tc1")],
    ["TOOL_CALL_RESULT", ev.toolCallResult("r1", "tc1", "ok")],
  ])("#54 R-STREAM-15b: %s after a reasoning chunk gets the END before it", (_, trigger) => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: trigger,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#55 R-STREAM-15c: RUN_FINISHED → END first, so no open-at-finish violation for chunk-opened items", () => {
    expectExpansion("a b z |", "a (BC) (Dz) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      z,
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#56 R-STREAM-15c: RUN_ERROR → END first, then the RUN_ERROR as an event", () => {
    expectExpansion("a b e |", "a (BC) (De) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      e: ev.runError("producer failed"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#57 R-STREAM-15c: MESSAGES_SNAPSHOT → END before the snapshot", () => {
    expectExpansion("a b m |", "a (BC) (Dm) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      m: ev.messagesSnapshot([{ id: "u1", role: "user", content: "hi" }]),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it("#58 R-PROC-12: an unknown event type closes nothing (enforcement drops it upstream; alone, expansion lets it pass)", () => {
    expectExpansion("a b u d |", "a (BC) u D |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      u: { type: "REASONING_SUMMARY", messageId: "m1" },
      d: ev.reasoningChunk(undefined, "b"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageContent("m1", "b"),
    });
  });

  it("#59 R-PROC-13 R-STREAM-15b: the REASONING_START the boundary makes of THINKING_START closes the chunk stream", () => {
    expectExpansion("a b c |", "a (BC) (Dc) |", {
      a,
      b: ev.reasoningChunk("m1", "a"),
      c: ev.reasoningStart("think-1"),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
      D: ev.reasoningMessageEnd("m1"),
    });
  });

  it('#60 R-SCHEMA-5: a role on a reasoning chunk is undescribed: never carried; the START has the fixed role "reasoning"', () => {
    expectExpansion("a b |", "a (BC) |", {
      a,
      b: ev.reasoningChunk("m1", "a", { role: "assistant" }),
      B: ev.reasoningMessageStart("m1"),
      C: ev.reasoningMessageContent("m1", "a"),
    });
  });

  it("#61 R-STREAM-8 R-PROC-16: RCH(m1, delta: 5) fails; never coerced", () => {
    const b = ev.reasoningChunk("m1", undefined, { delta: 5 });
    expectExpansion("a b |", "a #", { a, b }, failure("MALFORMED_EVENT", "R-PROC-16", 1));
  });

  it('#62 R-STREAM-17: RCH(m1,"a",sub=A), SUBAGENT_FINISHED(A) → END m1 before SUBAGENT_FINISHED', () => {
    expectExpansion("a b f |", "a (BC) (Df) |", {
      a,
      b: ev.reasoningChunk("m1", "a", sub("A")),
      f: ev.subagentFinished("A"),
      B: ev.reasoningMessageStart("m1", sub("A")),
      C: ev.reasoningMessageContent("m1", "a", sub("A")),
      D: ev.reasoningMessageEnd("m1", sub("A")),
    });
  });

  it('#63 R-STREAM-16: two subagent streams, none in the parent, untagged RCH(,"x") → AMBIGUOUS_CONTINUATION', () => {
    const values = {
      a,
      b: ev.reasoningChunk("ma", "1", sub("A")),
      c: ev.reasoningChunk("mb", "2", sub("B")),
      d: ev.reasoningChunk(undefined, "x"),
      B: ev.reasoningMessageStart("ma", sub("A")),
      C: ev.reasoningMessageContent("ma", "1", sub("A")),
      D: ev.reasoningMessageStart("mb", sub("B")),
      E: ev.reasoningMessageContent("mb", "2", sub("B")),
    };
    expectExpansion(
      "a b c d |",
      "a (BC) (DE) #",
      values,
      failure("AMBIGUOUS_CONTINUATION", "R-STREAM-16", 3, ["A", "B"]),
    );
  });

  it("#64 R-PROC-15: synthesized events carry the chunk's metadata, rawEvent and subagentRunId, not its timestamp", () => {
    const chunk = ev.reasoningChunk("m1", "a", {
      timestamp: 42,
      metadata: { k: "v" },
      rawEvent: { native: true },
      ...sub("A"),
    });
    expectExpansion("a b |", "a (BC) |", {
      a,
      b: chunk,
      B: ev.reasoningMessageStart("m1", { metadata: { k: "v" }, rawEvent: { native: true }, ...sub("A") }),
      C: ev.reasoningMessageContent("m1", "a", { metadata: { k: "v" }, rawEvent: { native: true }, ...sub("A") }),
    });
    const { out } = runStage(createExpandStage(), [chunk]);
    for (const e of out) expect(e).not.toHaveProperty("timestamp");
  });
});
