import { enforceSchema, expandChunks, upcastThinking } from "../src/pipeline/operators";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CORPUS_DIR } from "../test/conformance/fixture";
import { EventType } from "@ag-ui/core";
import { ReasoningProtocolError } from "../src/core/errors";
import { runStage } from "../src/core/stage-operator";
import type { ReasoningWarning } from "../src/core/types";
import { formatWarning } from "../src/core/warnings";
import { ev, sequentialIds } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";
import { createUpcastStage, type UpcastOptions, type UpcastState } from "../src/upcast/upcast-thinking";
import { DEFAULT_THINKING_EXPIRY } from "../src/upcast/thinking-expiry";

// ---------------------------------------------------------------------------------------------
// Harness

type Values = Record<string, unknown>;

/**
 * Runs `source` (values `inputs`) through `upcastThinking` with deterministic ids (`think-1`, …)
 * and asserts the exact output; returns the warnings. Every source event yields at most one
 * output in its own frame, so `"a b |"` lines up with `"A B |"`.
 */
function upcast(
  source: string,
  inputs: Values,
  expected: string,
  outputs: Values,
  options: UpcastOptions = {},
  error?: unknown,
): ReasoningWarning[] {
  const sink = collectWarnings();
  createTestScheduler().run(({ cold, expectObservable }) => {
    const out = cold(source, inputs).pipe(
      upcastThinking({ idFactory: sequentialIds(), ...options, onWarning: sink.onWarning }),
    );
    expectObservable(out).toBe(expected, outputs, error);
  });
  return sink.warnings;
}

/** The error a marble `#` must carry. */
const failure = (code: string, rule: string, eventIndex: number, eventType: string, ids: readonly string[] = []) =>
  expect.objectContaining({ name: "ReasoningProtocolError", code, rule, eventIndex, eventType, ids });

/** Runs the pure step over an array (no RxJS), with deterministic ids. */
function run(events: readonly unknown[], options: UpcastOptions = {}) {
  return runStage(createUpcastStage({ idFactory: sequentialIds(), ...options }), events);
}

/** The thrown error of a pure run, failing the test if there is none. */
function errorOf(events: readonly unknown[], options: UpcastOptions = {}): ReasoningProtocolError {
  const { error } = run(events, options);
  expect(error).toBeInstanceOf(ReasoningProtocolError);
  return error as ReasoningProtocolError;
}

/** An idFactory that records how often it was called. */
function countingIds(): { readonly idFactory: () => string; calls(): number } {
  let n = 0;
  return { idFactory: () => `minted-${++n}`, calls: () => n };
}

const codes = (ws: readonly ReasoningWarning[]): string[] => ws.map((w) => w.code);

const at = (iso: string) => () => new Date(iso);

// Legacy inputs (0.x shapes, R-DEP-5) and their translations with the ids sequentialIds() mints.
const tStart = ev.thinkingStart();
const tEnd = ev.thinkingEnd();
const tmStart = ev.thinkingTextMessageStart();
const tmContent = (delta: string) => ev.thinkingTextMessageContent(delta);
const tmEnd = ev.thinkingTextMessageEnd();

// ---------------------------------------------------------------------------------------------
// R-DEP: the registry mapping

describe("upcastThinking — the registry mapping (R-DEP-2/4/5)", () => {
  it("R-DEP-2: each THINKING_* type becomes its REASONING_* replacement, in order, one for one", () => {
    const warnings = upcast(
      "s m c e x |",
      { s: tStart, m: tmStart, c: tmContent("Let me check."), e: tmEnd, x: tEnd },
      "S M C E X |",
      {
        S: { type: "REASONING_START", messageId: "think-1" },
        M: { type: "REASONING_MESSAGE_START", messageId: "think-2", role: "reasoning" },
        C: { type: "REASONING_MESSAGE_CONTENT", messageId: "think-2", delta: "Let me check." },
        E: { type: "REASONING_MESSAGE_END", messageId: "think-2" },
        X: { type: "REASONING_END", messageId: "think-1" },
      },
    );
    expect(codes(warnings)).toEqual(Array(5).fill("THINKING_UPCAST"));
  });

  it("R-DEP-2: there never was a chunk form — THINKING_TEXT_MESSAGE_CHUNK is not legacy material and passes untouched", () => {
    const chunk = { type: "THINKING_TEXT_MESSAGE_CHUNK", delta: "x" };
    const warnings = upcast("k |", { k: chunk }, "k |", { k: chunk });
    expect(warnings).toEqual([]);
  });

  it("R-DEP-4: every translated event warns THINKING_UPCAST once, naming the legacy type, its replacement, index and id; not lossy", () => {
    const warnings = upcast(
      "r s m c e x |",
      { r: ev.runStarted(), s: tStart, m: tmStart, c: tmContent("a"), e: tmEnd, x: tEnd },
      "r S M C E X |",
      {
        r: ev.runStarted(),
        S: ev.reasoningStart("think-1"),
        M: ev.reasoningMessageStart("think-2"),
        C: ev.reasoningMessageContent("think-2", "a"),
        E: ev.reasoningMessageEnd("think-2"),
        X: ev.reasoningEnd("think-1"),
      },
    );
    const expected: [string, string, string][] = [
      ["THINKING_START", "REASONING_START", "think-1"],
      ["THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START", "think-2"],
      ["THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT", "think-2"],
      ["THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END", "think-2"],
      ["THINKING_END", "REASONING_END", "think-1"],
    ];
    expect(warnings).toEqual(
      expected.map(([legacy, target, id], i) => ({
        code: "THINKING_UPCAST",
        rule: "R-DEP-4",
        message: `${legacy} translated to ${target} (retired in AG-UI 1.0, R-DEP-2); upgrade the producer to emit ${target}`,
        eventType: legacy,
        eventIndex: i + 1,
        ids: [id],
      })),
    );
    expect(warnings.some((w) => w.lossy)).toBe(false);
  });

  it('R-DEP-5: 0.x shapes carry no ids — the span and the message get distinct minted ids and the message role is "reasoning"', () => {
    const { out, error } = run([tStart, tmStart, tmContent("a"), tmEnd, tmStart, tmContent("b"), tmEnd, tEnd]);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.reasoningStart("think-1"),
      ev.reasoningMessageStart("think-2"),
      ev.reasoningMessageContent("think-2", "a"),
      ev.reasoningMessageEnd("think-2"),
      ev.reasoningMessageStart("think-3"),
      ev.reasoningMessageContent("think-3", "b"),
      ev.reasoningMessageEnd("think-3"),
      ev.reasoningEnd("think-1"),
    ]);
  });

  it("R-DEP-6: the envelope and any other field are copied as they are — rawEvent: null included, for enforcement to judge", () => {
    const envelope = {
      timestamp: 1700000000000,
      rawEvent: null,
      metadata: { k: "v" },
      subagentRunId: "sub-1",
      zzExtra: 1,
    };
    const warnings = upcast(
      "m c |",
      { m: ev.thinkingTextMessageStart(envelope), c: ev.thinkingTextMessageContent("a", envelope) },
      "M C |",
      {
        M: { ...envelope, type: "REASONING_MESSAGE_START", messageId: "think-1", role: "reasoning" },
        C: { ...envelope, type: "REASONING_MESSAGE_CONTENT", messageId: "think-1", delta: "a" },
      },
    );
    expect(codes(warnings)).toEqual(["THINKING_UPCAST", "THINKING_UPCAST"]);
  });

  it("R-DEP-3: the default expiry is 2027-09-17 UTC, twelve months after the 1.0 release: translated until, passed through from then", () => {
    expect(DEFAULT_THINKING_EXPIRY).toBe("2027-09-17");
    const before = run([tStart], { now: at("2027-09-16T23:59:59.999Z") });
    expect(before.out).toEqual([ev.reasoningStart("think-1")]);
    const from = run([tStart], { now: at("2027-09-17T00:00:00.000Z") });
    expect(from.out).toEqual([tStart]);
    expect(from.out[0]).toBe(tStart);
    expect(from.warnings).toEqual([]);
  });

  it("R-DEP-3: an expiresAt that is not a date is a configuration error, reported when the operator is created", () => {
    expect(() => upcastThinking({ expiresAt: "someday" })).toThrow(RangeError);
    expect(() => createUpcastStage({ expiresAt: new Date(Number.NaN) })).toThrow(/expiresAt/);
  });
});

// ---------------------------------------------------------------------------------------------
// R-VER: translating retired shapes

describe("upcastThinking — versioning (R-VER-7/10/11/12/13)", () => {
  it("R-VER-10: the era-0-0-45 fixture's retired shapes are translated, not dropped, and the warning names THINKING_START", () => {
    const fixture = JSON.parse(readFileSync(resolve(CORPUS_DIR, "era-0-0-45-thinking-translated.json"), "utf8")) as {
      stream: Record<string, unknown>[];
    };
    const { out, warnings, error } = run(fixture.stream);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      fixture.stream[0],
      { type: "REASONING_START", messageId: "think-1", metadata: { "agui-reasoning": { thinkingTitle: "Working" } } },
      { type: "REASONING_MESSAGE_START", messageId: "think-2", role: "reasoning" },
      { type: "REASONING_MESSAGE_CONTENT", messageId: "think-2", delta: "Let me check." },
      { type: "REASONING_MESSAGE_END", messageId: "think-2" },
      { type: "REASONING_END", messageId: "think-1" },
      ...fixture.stream.slice(6),
    ]);
    // Untouched events are the same objects (no copies).
    for (const i of [0, 6, 7, 8, 9]) expect(out[i]).toBe(fixture.stream[i]);
    expect(codes(warnings)).toEqual([
      "THINKING_UPCAST",
      "THINKING_TITLE_MOVED",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
    ]);
    expect(formatWarning(warnings[0]!)).toContain("THINKING_START");
  });

  it("R-VER-11: it runs on raw input before enforcement — a non-string delta is passed on unchanged, never coerced", () => {
    const bad = ev.thinkingTextMessageContent("x", { delta: 5 });
    const { out, error } = run([tmStart, bad]);
    expect(error).toBeUndefined();
    expect(out[1]).toEqual({ type: "REASONING_MESSAGE_CONTENT", messageId: "think-1", delta: 5 });
    const missing = { type: "THINKING_TEXT_MESSAGE_CONTENT" };
    expect(run([tmStart, missing]).out[1]).toEqual({ type: "REASONING_MESSAGE_CONTENT", messageId: "think-1" });
  });

  it("R-VER-12: a translation that would lose THINKING_START.title moves it into metadata and warns THINKING_TITLE_MOVED", () => {
    const warnings = upcast("s |", { s: ev.thinkingStart({ title: "Working" }) }, "S |", {
      S: {
        type: "REASONING_START",
        messageId: "think-1",
        metadata: { "agui-reasoning": { thinkingTitle: "Working" } },
      },
    });
    expect(warnings[1]).toEqual({
      code: "THINKING_TITLE_MOVED",
      rule: "D-THINK-TITLE",
      message:
        "THINKING_START /title moved to REASONING_START /metadata/agui-reasoning/thinkingTitle (REASONING_START has no title field, R-VER-12)",
      eventType: "THINKING_START",
      eventIndex: 0,
      path: "/title",
      ids: ["think-1"],
    });
  });

  it("R-VER-7: quiet silences the THINKING_UPCAST notices but never the lossy THINKING_TITLE_DROPPED", () => {
    const seen: ReasoningWarning[] = [];
    const lost = ev.thinkingStart({ title: "T", metadata: { "agui-reasoning": "producer's own" } });
    createTestScheduler().run(({ cold, expectObservable }) => {
      const out = cold("s m |", { s: lost, m: tmStart }).pipe(
        upcastThinking({ idFactory: sequentialIds(), quiet: true, onWarning: (w) => seen.push(w) }),
      );
      expectObservable(out).toBe("S M |", {
        S: { type: "REASONING_START", messageId: "think-1", metadata: { "agui-reasoning": "producer's own" } },
        M: ev.reasoningMessageStart("think-2"),
      });
    });
    expect(seen).toEqual([
      expect.objectContaining({ code: "THINKING_TITLE_DROPPED", lossy: true, rule: "R-VER-12", path: "/title" }),
    ]);
  });

  it("R-VER-13: after the expiry THINKING_* pass through untranslated, as the same objects, without warnings (injected clock)", () => {
    const s = ev.thinkingStart({ title: "Working" });
    const warnings = upcast(
      "s m c e x |",
      { s, m: tmStart, c: tmContent("a"), e: tmEnd, x: tEnd },
      "s m c e x |",
      { s, m: tmStart, c: tmContent("a"), e: tmEnd, x: tEnd },
      { expiresAt: new Date("2026-01-01T00:00:00Z"), now: at("2026-06-01T00:00:00Z") },
    );
    expect(warnings).toEqual([]);
    // An orphan is no longer ours to judge either: it passes through for enforcement to drop.
    expect(run([tEnd], { expiresAt: "2026-01-01", now: at("2026-01-01T00:00:00Z") }).out).toEqual([tEnd]);
  });

  it("R-VER-13: the expiry is judged once per subscription, so a stream never switches behaviour mid-run", () => {
    let clock = new Date("2027-09-16T23:59:59Z");
    const stage = createUpcastStage({ idFactory: sequentialIds(), now: () => clock });
    const state = stage.init();
    const opened = stage.step(state, tStart, { index: 0 });
    clock = new Date("2027-09-18T00:00:00Z");
    const closed = stage.step(opened.state, tEnd, { index: 1 });
    expect(closed.out).toEqual([ev.reasoningEnd("think-1")]);
    // A new subscription (a fresh state) sees the new date.
    expect(stage.step(stage.init(), tStart, { index: 0 }).out).toEqual([tStart]);
  });
});

// ---------------------------------------------------------------------------------------------
// R-PROC: the compatibility boundary comes first

describe("upcastThinking — the compatibility boundary (R-PROC-13)", () => {
  it("R-PROC-13: it sees raw input first — null, numbers, strings, arrays, objects without a string type and chunks pass through as the same values", () => {
    const chunk = ev.reasoningChunk("m1", "a");
    const arrayWithType = Object.assign([1], { type: "THINKING_START" });
    const inputs: Values = {
      n: null,
      f: 42,
      t: "THINKING_START",
      a: [tStart],
      w: arrayWithType,
      o: { messageId: "x" },
      y: { type: 7 },
      k: chunk,
      u: undefined,
    };
    const warnings = upcast("n f t a w o y k u |", inputs, "n f t a w o y k u |", inputs);
    expect(warnings).toEqual([]);
    const { out, error } = run(Object.values(inputs));
    expect(error).toBeUndefined();
    Object.values(inputs).forEach((v, i) => expect(out[i]).toBe(v));
  });

  it("R-PROC-13: legacy input is never mutated — frozen events translate into new objects", () => {
    const metadata = Object.freeze({ k: "v" });
    const inputs = [ev.thinkingStart({ title: "T", metadata }), tmStart, tmContent("a"), tmEnd, tEnd].map((e) =>
      Object.freeze(e),
    );
    const { out, error } = run(inputs);
    expect(error).toBeUndefined();
    out.forEach((o, i) => expect(o).not.toBe(inputs[i]));
    expect(inputs[0]).toEqual({ type: "THINKING_START", title: "T", metadata: { k: "v" } });
    expect(out[0]).toEqual({
      type: "REASONING_START",
      messageId: "think-1",
      metadata: { k: "v", "agui-reasoning": { thinkingTitle: "T" } },
    });
  });

  it("R-PROC-4: a __proto__ key on a legacy event (JSON.parse makes it an own field) is copied as data, never as the copy's prototype", () => {
    const parsed = JSON.parse('{"type":"THINKING_TEXT_MESSAGE_START","__proto__":{"polluted":true}}') as Record<
      string,
      unknown
    >;
    const [translated] = run([parsed]).out as Record<string, unknown>[];
    expect(Object.getPrototypeOf(translated)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(translated, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(translated, "__proto__")?.value).toEqual({ polluted: true });
    expect((translated as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("R-PROC-13: an event that is not legacy leaves the state object as it is (no per-event allocation of state)", () => {
    const stage = createUpcastStage({ idFactory: sequentialIds() });
    const state: UpcastState = stage.init();
    for (const e of [
      ev.runStarted(),
      ev.reasoningStart(),
      ev.textContent("a1", "x"),
      null,
      ev.runError(),
      ev.runFinished(),
    ]) {
      expect(stage.step(state, e, { index: 0 }).state).toBe(state);
    }
  });

  it("#59 R-PROC-13 R-STREAM-15: a chunk then THINKING_START — the boundary translates first, so the REASONING_START closes the chunk stream", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("r 9ms k 9ms s 9ms |", { r: ev.runStarted(), k: ev.reasoningChunk("m1", "a"), s: tStart });
      const out = source.pipe(
        upcastThinking({ idFactory: sequentialIds(), onWarning: sink.onWarning }),
        expandChunks(),
      );
      // A group "(XY)" takes as many frames as it has characters: 10 + 4 + 6 = 20, 20 + 4 + 6 = 30.
      expectObservable(out).toBe("r 9ms (SC) 6ms (ET) 6ms |", {
        r: ev.runStarted(),
        S: ev.reasoningMessageStart("m1"),
        C: ev.reasoningMessageContent("m1", "a"),
        E: ev.reasoningMessageEnd("m1"),
        T: ev.reasoningStart("think-1"),
      });
    });
    expect(sink.warnings).toEqual([
      expect.objectContaining({ code: "THINKING_UPCAST", eventType: "THINKING_START", eventIndex: 2 }),
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Decisions

describe("upcastThinking — ids (D-THINK-IDS)", () => {
  it("D-THINK-IDS: a messageId the legacy event carries is used when it is a non-empty string (seed-001 style); nothing is minted", () => {
    const ids = countingIds();
    const { out, error } = run(
      [
        ev.thinkingStart({ messageId: "think-001" }),
        ev.thinkingTextMessageStart({ messageId: "msg-001" }),
        ev.thinkingTextMessageContent("...", { messageId: "msg-001" }),
        ev.thinkingTextMessageEnd({ messageId: "msg-001" }),
        ev.thinkingEnd({ messageId: "think-001" }),
      ],
      { idFactory: ids.idFactory },
    );
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.reasoningStart("think-001"),
      ev.reasoningMessageStart("msg-001"),
      ev.reasoningMessageContent("msg-001", "..."),
      ev.reasoningMessageEnd("msg-001"),
      ev.reasoningEnd("think-001"),
    ]);
    expect(ids.calls()).toBe(0);
  });

  it("D-THINK-IDS: an empty or non-string messageId is not an id — the opener mints one and the continuations reuse it", () => {
    for (const bad of ["", 7, null, { id: "x" }]) {
      const { out, error } = run([
        ev.thinkingTextMessageStart({ messageId: bad }),
        ev.thinkingTextMessageContent("a", { messageId: bad }),
        ev.thinkingTextMessageEnd(),
      ]);
      expect(error).toBeUndefined();
      expect(out).toEqual([
        ev.reasoningMessageStart("think-1"),
        ev.reasoningMessageContent("think-1", "a"),
        ev.reasoningMessageEnd("think-1"),
      ]);
    }
  });

  it("D-THINK-IDS: a continuation carrying another id keeps it (verification judges it), and its END still closes the legacy message", () => {
    const { out, error } = run([tmStart, ev.thinkingTextMessageContent("a", { messageId: "other" }), tmEnd, tmStart]);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.reasoningMessageStart("think-1"),
      ev.reasoningMessageContent("other", "a"),
      ev.reasoningMessageEnd("think-1"),
      ev.reasoningMessageStart("think-2"),
    ]);
  });

  it("D-THINK-IDS: the default idFactory mints a fresh UUID per opener", () => {
    const { out } = runStage(createUpcastStage(), [tStart, tmStart]);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const [span, message] = out.map((e) => e.messageId as string);
    expect(span).toMatch(uuid);
    expect(message).toMatch(uuid);
    expect(span).not.toBe(message);
  });

  it("D-THINK-IDS: an idFactory that returns no usable id is a configuration error with a clear message", () => {
    const { error } = run([tStart], { idFactory: () => "" });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/idFactory must return a non-empty string/);
  });

  it("R-REASON-12 D-THINK-IDS: a span and a message may carry the same id — each is its own open item", () => {
    const { out, error } = run([
      ev.thinkingStart({ messageId: "x" }),
      ev.thinkingTextMessageStart({ messageId: "x" }),
      tmEnd,
      tEnd,
    ]);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.reasoningStart("x"),
      ev.reasoningMessageStart("x"),
      ev.reasoningMessageEnd("x"),
      ev.reasoningEnd("x"),
    ]);
  });
});

describe("upcastThinking — the title (D-THINK-TITLE)", () => {
  it("D-THINK-TITLE: the title is merged with the metadata the event carries", () => {
    const { out, warnings } = run([ev.thinkingStart({ title: "Working", metadata: { trace: "t-1" } })]);
    expect(out).toEqual([
      {
        type: "REASONING_START",
        messageId: "think-1",
        metadata: { trace: "t-1", "agui-reasoning": { thinkingTitle: "Working" } },
      },
    ]);
    expect(codes(warnings)).toEqual(["THINKING_UPCAST", "THINKING_TITLE_MOVED"]);
  });

  it("D-THINK-TITLE: an existing agui-reasoning object is extended, not replaced", () => {
    const { out } = run([ev.thinkingStart({ title: "", metadata: { "agui-reasoning": { other: 1 } } })]);
    expect(out).toEqual([
      {
        type: "REASONING_START",
        messageId: "think-1",
        metadata: { "agui-reasoning": { other: 1, thinkingTitle: "" } },
      },
    ]);
  });

  it("D-THINK-TITLE R-VER-12: producer metadata is never overwritten — when its place is taken the title is dropped with a lossy warning", () => {
    for (const taken of ["a string", ["x"], null, { thinkingTitle: "producer's" }]) {
      const metadata = { "agui-reasoning": taken };
      const { out, warnings } = run([ev.thinkingStart({ title: "Working", metadata })]);
      expect(out).toEqual([{ type: "REASONING_START", messageId: "think-1", metadata }]);
      expect(warnings[1]).toEqual({
        code: "THINKING_TITLE_DROPPED",
        rule: "R-VER-12",
        message:
          "THINKING_START /title dropped: REASONING_START has no title field and the event's /metadata/agui-reasoning " +
          "is not an object free of thinkingTitle, so the producer's metadata was kept unchanged",
        eventType: "THINKING_START",
        eventIndex: 0,
        path: "/title",
        ids: ["think-1"],
        lossy: true,
      });
    }
  });

  it("D-THINK-TITLE R-PROC-16: with malformed metadata nothing is repaired — metadata and title stay as they are, for enforcement to reject", () => {
    for (const metadata of [null, 3, ["a"]]) {
      const { out, warnings } = run([ev.thinkingStart({ title: "Working", metadata })]);
      expect(out).toEqual([{ type: "REASONING_START", messageId: "think-1", title: "Working", metadata }]);
      expect(codes(warnings)).toEqual(["THINKING_UPCAST"]);
    }
  });

  it("D-THINK-TITLE R-PROC-4: a title that is not a string (0.x schema: string) fails MALFORMED_EVENT rather than riding in metadata", () => {
    for (const title of [5, null, { text: "x" }]) {
      const error = errorOf([ev.runStarted(), { type: "THINKING_START", title }]);
      expect(error).toMatchObject({
        code: "MALFORMED_EVENT",
        rule: "R-PROC-4",
        eventIndex: 1,
        eventType: "THINKING_START",
        ids: [],
      });
      expect(error.message).toContain("/title must be a string");
    }
  });

  it("D-THINK-TITLE: an explicitly undefined title is absent — no title key, no metadata, no title warning", () => {
    const { out, warnings } = run([ev.thinkingStart({ title: undefined })]);
    expect(out).toEqual([ev.reasoningStart("think-1")]);
    expect(Object.keys(out[0] as object)).not.toContain("title");
    expect(codes(warnings)).toEqual(["THINKING_UPCAST"]);
  });
});

describe("upcastThinking — orphans and re-opened items (D-THINK-ORPHAN)", () => {
  it("D-THINK-ORPHAN: THINKING_TEXT_MESSAGE_END without a start fails LEGACY_ORPHAN naming the legacy type; no id is minted", () => {
    const ids = countingIds();
    const warnings = upcast(
      "r e |",
      { r: ev.runStarted(), e: tmEnd },
      "r #",
      { r: ev.runStarted() },
      { idFactory: ids.idFactory },
      failure("LEGACY_ORPHAN", "D-THINK-ORPHAN", 1, "THINKING_TEXT_MESSAGE_END"),
    );
    expect(warnings).toEqual([]);
    expect(ids.calls()).toBe(0);
    const error = errorOf([tmEnd]);
    expect(error.message).toBe(
      "LEGACY_ORPHAN (D-THINK-ORPHAN) at event #0 THINKING_TEXT_MESSAGE_END: retired THINKING_TEXT_MESSAGE_END without an open " +
        "THINKING_TEXT_MESSAGE_START; no REASONING_MESSAGE_END is invented for it.",
    );
    expect(error.event).toBe(tmEnd);
  });

  it("D-THINK-ORPHAN: an orphan carrying a messageId is named by it, and still fails (the legacy cause is what is reported)", () => {
    const error = errorOf([ev.thinkingEnd({ messageId: "s-9" })]);
    expect(error).toMatchObject({
      code: "LEGACY_ORPHAN",
      rule: "D-THINK-ORPHAN",
      eventIndex: 0,
      eventType: "THINKING_END",
      ids: ["s-9"],
    });
  });

  it("D-THINK-ORPHAN: a second END after the first closed the item is an orphan too", () => {
    expect(errorOf([tmStart, tmEnd, tmEnd])).toMatchObject({
      code: "LEGACY_ORPHAN",
      eventIndex: 2,
      eventType: "THINKING_TEXT_MESSAGE_END",
    });
    expect(errorOf([tStart, tEnd, tEnd])).toMatchObject({
      code: "LEGACY_ORPHAN",
      eventIndex: 2,
      eventType: "THINKING_END",
    });
  });

  it("R-REASON-11: THINKING_TEXT_MESSAGE_START while a legacy message is open fails DUPLICATE_OPEN — 0.x messages have no id, so it re-opens the open one", () => {
    const ids = countingIds();
    upcast(
      "m n |",
      { m: tmStart, n: tmStart },
      "M #",
      { M: ev.reasoningMessageStart("minted-1") },
      { idFactory: ids.idFactory },
      failure("DUPLICATE_OPEN", "R-REASON-11", 1, "THINKING_TEXT_MESSAGE_START", ["minted-1"]),
    );
    expect(ids.calls()).toBe(1);
  });

  it("R-REASON-10: THINKING_START while a legacy span is open fails DUPLICATE_OPEN, whether the ids are minted, equal or different", () => {
    expect(errorOf([tStart, tStart])).toMatchObject({
      code: "DUPLICATE_OPEN",
      rule: "R-REASON-10",
      eventIndex: 1,
      ids: ["think-1"],
    });
    const same = ev.thinkingStart({ messageId: "s1" });
    expect(errorOf([same, same])).toMatchObject({ code: "DUPLICATE_OPEN", rule: "R-REASON-10", ids: ["s1"] });
    expect(errorOf([same, ev.thinkingStart({ messageId: "s2" })])).toMatchObject({
      code: "DUPLICATE_OPEN",
      ids: ["s1", "s2"],
    });
    expect(errorOf([same, ev.thinkingStart({ messageId: "s2" })]).message).toContain(
      "must be closed before another opens",
    );
  });

  it("D-CONTAIN: a legacy span may close while its message is still open — the message continues", () => {
    const { out, error } = run([tStart, tmStart, tEnd, tmContent("t"), tmEnd]);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.reasoningStart("think-1"),
      ev.reasoningMessageStart("think-2"),
      ev.reasoningEnd("think-1"),
      ev.reasoningMessageContent("think-2", "t"),
      ev.reasoningMessageEnd("think-2"),
    ]);
  });

  it("R-RUN-11 D-THINK-ORPHAN: RUN_ERROR ends what the legacy stream had open — a THINKING_END after it is an orphan", () => {
    const error = errorOf([ev.runStarted(), tStart, tmStart, ev.runError(), ev.runStarted("r2"), tEnd]);
    expect(error).toMatchObject({ code: "LEGACY_ORPHAN", eventIndex: 5, eventType: "THINKING_END" });
    expect(errorOf([tmStart, ev.runError(), tmContent("x")])).toMatchObject({ code: "LEGACY_ORPHAN", eventIndex: 2 });
  });

  it("R-RUN-9 D-THINK-IDS: RUN_STARTED starts with nothing open — a legacy opener in the new run is not a re-open", () => {
    const { out, error } = run([ev.runStarted(), tmStart, ev.runStarted("r2"), tmStart]);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.runStarted(),
      ev.reasoningMessageStart("think-1"),
      ev.runStarted("r2"),
      ev.reasoningMessageStart("think-2"),
    ]);
  });

  it("R-REASON-13: RUN_FINISHED does not reset — a run cannot finish with a legacy item open (verification fails it there), so the item is still the open one", () => {
    const { out, error } = run([ev.runStarted(), tmStart, ev.runFinished(), tmEnd]);
    expect(error).toBeUndefined();
    expect(out[3]).toEqual(ev.reasoningMessageEnd("think-1"));
    expect(errorOf([tmStart, ev.runFinished(), tmStart])).toMatchObject({ code: "DUPLICATE_OPEN", eventIndex: 2 });
  });

  it("R-PROC-4: hostile legacy events never raise a TypeError — fields of any type are copied or judged", () => {
    const hostile: unknown[] = [
      { type: "THINKING_START", messageId: { toString: null }, metadata: [], title: "t" },
      { type: "THINKING_TEXT_MESSAGE_START", messageId: "1", role: 3 },
      { type: "THINKING_TEXT_MESSAGE_CONTENT", delta: null, messageId: Symbol.iterator.toString() },
      { type: "THINKING_TEXT_MESSAGE_END", metadata: null },
      Object.create(null, { type: { value: "THINKING_END", enumerable: true } }),
    ];
    const { out, error } = run(hostile);
    expect(error).toBeUndefined();
    expect(out.map((e) => e.type)).toEqual([
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
    ]);
    expect(out[1]).toEqual({ type: "REASONING_MESSAGE_START", messageId: "1", role: 3 });
    expect(out[2]).toMatchObject({ delta: null, messageId: "Symbol(Symbol.iterator)" });
  });
});

// ---------------------------------------------------------------------------------------------
// Edge cases #100–#105

describe("upcastThinking — edge cases #100–#105", () => {
  it("#100 R-VER-12: THINKING_START{title} becomes REASONING_START{messageId: minted} and the title is kept, with both warnings", () => {
    const warnings = upcast("s |", { s: ev.thinkingStart({ title: "Working" }) }, "S |", {
      S: {
        type: EventType.REASONING_START,
        messageId: "think-1",
        metadata: { "agui-reasoning": { thinkingTitle: "Working" } },
      },
    });
    expect(codes(warnings)).toEqual(["THINKING_UPCAST", "THINKING_TITLE_MOVED"]);
  });

  it('#101 R-SCHEMA-2: the message triad becomes START{role: "reasoning"}/CONTENT/END with one id, one warning per conversion', () => {
    const warnings = upcast(
      "m c d e |",
      { m: tmStart, c: tmContent("Let "), d: tmContent("me"), e: tmEnd },
      "M C D E |",
      {
        M: ev.reasoningMessageStart("think-1"),
        C: ev.reasoningMessageContent("think-1", "Let "),
        D: ev.reasoningMessageContent("think-1", "me"),
        E: ev.reasoningMessageEnd("think-1"),
      },
    );
    expect(warnings.map((w) => [w.code, w.eventType])).toEqual([
      ["THINKING_UPCAST", "THINKING_TEXT_MESSAGE_START"],
      ["THINKING_UPCAST", "THINKING_TEXT_MESSAGE_CONTENT"],
      ["THINKING_UPCAST", "THINKING_TEXT_MESSAGE_CONTENT"],
      ["THINKING_UPCAST", "THINKING_TEXT_MESSAGE_END"],
    ]);
  });

  it("#101 R-SCHEMA-2: a role the legacy event carries itself is the producer's value and is kept for enforcement to judge", () => {
    const { out } = run([ev.thinkingTextMessageStart({ role: "assistant" })]);
    expect(out).toEqual([{ type: "REASONING_MESSAGE_START", messageId: "think-1", role: "assistant" }]);
  });

  it("#102 R-REASON-9: THINKING_TEXT_MESSAGE_CONTENT with no preceding start fails LEGACY_ORPHAN; no message is invented", () => {
    const ids = countingIds();
    upcast(
      "s c |",
      { s: tStart, c: tmContent("lost") },
      "S #",
      { S: ev.reasoningStart("minted-1") },
      { idFactory: ids.idFactory },
      failure("LEGACY_ORPHAN", "D-THINK-ORPHAN", 1, "THINKING_TEXT_MESSAGE_CONTENT"),
    );
    expect(ids.calls()).toBe(1);
  });

  it("#103 R-REASON-10: THINKING_END with no THINKING_START fails LEGACY_ORPHAN, even while a legacy message is open", () => {
    upcast(
      "m x |",
      { m: tmStart, x: tEnd },
      "M #",
      { M: ev.reasoningMessageStart("think-1") },
      {},
      failure("LEGACY_ORPHAN", "D-THINK-ORPHAN", 1, "THINKING_END"),
    );
  });

  it("#104 #12: THINKING_TEXT_MESSAGE_* without THINKING_START translate — a reasoning message needs no span", () => {
    const { out, error } = run([ev.runStarted(), tmStart, tmContent("a"), tmEnd, ev.runFinished()]);
    expect(error).toBeUndefined();
    expect(out).toEqual([
      ev.runStarted(),
      ev.reasoningMessageStart("think-1"),
      ev.reasoningMessageContent("think-1", "a"),
      ev.reasoningMessageEnd("think-1"),
      ev.runFinished(),
    ]);
  });

  it("#105 R-VER-13: after the expiry THINKING_* reach enforcement untranslated and are dropped there as unknown types (DROP+WARN)", () => {
    const sink = collectWarnings();
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("r s m |", { r: ev.runStarted(), s: tStart, m: tmStart });
      const options = { onWarning: sink.onWarning };
      const out = source.pipe(upcastThinking({ ...options, now: at("2027-09-17T00:00:00Z") }), enforceSchema(options));
      expectObservable(out).toBe("r - - |", { r: ev.runStarted() });
    });
    expect(sink.warnings.map((w) => [w.code, w.eventType, w.eventIndex])).toEqual([
      ["UNKNOWN_EVENT_TYPE", "THINKING_START", 1],
      ["UNKNOWN_EVENT_TYPE", "THINKING_TEXT_MESSAGE_START", 2],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// D-REDACT

describe("upcastThinking — redaction (D-REDACT)", () => {
  it("D-REDACT: no warning or error repeats a title or a delta", () => {
    const secret = "SECRET-REASONING-TEXT";
    const moved = run([ev.thinkingStart({ title: secret }), tmStart, tmContent(secret), tmEnd, tEnd]);
    const dropped = run([ev.thinkingStart({ title: secret, metadata: { "agui-reasoning": 1 } })]);
    const warnings = [...moved.warnings, ...dropped.warnings];
    expect(codes(warnings)).toEqual([
      "THINKING_UPCAST",
      "THINKING_TITLE_MOVED",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
      "THINKING_UPCAST",
      "THINKING_TITLE_DROPPED",
    ]);
    const errors = [
      errorOf([tmContent(secret)]),
      errorOf([{ type: "THINKING_START", title: { secret } }]),
      errorOf([tmStart, tmStart]),
    ];
    const rendered = [
      ...warnings.map((w) => `${formatWarning(w)} ${JSON.stringify(w)}`),
      ...errors.map((e) => `${e.message} ${JSON.stringify(e)}`),
    ];
    for (const text of rendered) expect(text).not.toContain(secret);
  });
});
