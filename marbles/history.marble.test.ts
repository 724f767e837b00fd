import { deriveHistory } from "../src/pipeline/operators";
import type { Message } from "@ag-ui/core";
import { from } from "rxjs";
import { ReasoningProtocolError } from "../src/core/errors";
import { runStage, stageOperator } from "../src/core/stage-operator";
import type { AguiEvent, ReasoningWarning } from "../src/core/types";
import { createHistoryStage, type HistoryOptions } from "../src/history/history-stage";
import { toRunInputMessages } from "../src/history/run-input";
import type { IncompleteItem, ReasoningHistory, ValueIssuer } from "../src/history/types";
import { ev } from "../src/testing/builders";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const P = "https://agent.example/run";
const OTHER = "https://other.example/run";

/** Runs the history stage over `events` without RxJS. */
function run(events: readonly AguiEvent[], options: HistoryOptions = {}) {
  const r = runStage(createHistoryStage({ producer: P, ...options }), events);
  return { ...r, history: r.state.history, codes: r.warnings.map((w) => w.code) };
}

/** Steps the history stage over `events` without finishing it (the source has not completed). */
function stepAll(events: readonly AguiEvent[], options: HistoryOptions = {}) {
  const stage = createHistoryStage({ producer: P, ...options });
  let state = stage.init();
  events.forEach((event, index) => (state = stage.step(state, event, { index }).state));
  return { stage, state };
}

function hist(
  messages: readonly unknown[],
  incomplete: readonly IncompleteItem[] = [],
  issuers: readonly ValueIssuer[] = [],
) {
  // Durations depend on the clock; the D-DURATION tests pin them.
  return { messages, incomplete, issuers, durations: expect.any(Array) as unknown };
}
const issued = (subtype: ValueIssuer["subtype"], entityId: string, issuer: string | undefined = P): ValueIssuer => ({
  subtype,
  entityId,
  issuer,
});
const open = (id: string, kind: IncompleteItem["kind"] = "message"): IncompleteItem => ({ kind, id, reason: "open" });

/** A complete reasoning message. */
const reasoning = (id: string, text: string): AguiEvent[] => [
  ev.reasoningMessageStart(id),
  ev.reasoningMessageContent(id, text),
  ev.reasoningMessageEnd(id),
];
/** A complete text message. */
const text = (id: string, content: string, role = "assistant"): AguiEvent[] => [
  ev.textStart(id, role),
  ev.textContent(id, content),
  ev.textEnd(id),
];
/** A complete tool call on `parent`. */
const toolCall = (id: string, parent: string, args = "{}"): AguiEvent[] => [
  ev.toolCallStart(id, "search", { parentMessageId: parent }),
  ev.toolCallArgs(id, args),
  ev.toolCallEnd(id),
];
/** A tool message, as TOOL_CALL_RESULT makes it. */
const result = (id: string, callId: string, content: string) => ({ id, role: "tool", toolCallId: callId, content });
const snapshot = (messages: readonly unknown[]) => ev.messagesSnapshot(messages as Message[]);
const activityDelta = (messageId: string, activityType: string, patch: unknown[]): AguiEvent => ({
  type: "ACTIVITY_DELTA",
  messageId,
  activityType,
  patch,
});

const R = (id: string, content: string, extra: object = {}) => ({ id, role: "reasoning", content, ...extra });
const A = (id: string, content: string, extra: object = {}) => ({ id, role: "assistant", content, ...extra });
const U = (id: string, content: string, extra: object = {}) => ({ id, role: "user", content, ...extra });
const call = (id: string, args = "{}", extra: object = {}) => ({
  id,
  type: "function",
  function: { name: "search", arguments: args },
  ...extra,
});

/** The warning about an event, as the history stage builds it. */
function expectWarning(w: ReasoningWarning | undefined, fields: Partial<ReasoningWarning>): void {
  expect(w).toEqual(expect.objectContaining(fields));
}

/** D-REDACT: nothing a warning or error says may contain `secret`. */
function expectRedacted(things: readonly unknown[], secret: string): void {
  for (const thing of things) {
    const text = thing instanceof Error ? `${thing.message} ${JSON.stringify(thing)}` : JSON.stringify(thing);
    expect(text).not.toContain(secret);
  }
}

// ---------------------------------------------------------------------------------------------
// deriveHistory, and the history stage's events (what the facade's events$ carries)
// ---------------------------------------------------------------------------------------------

/** The history stage's `out`: the events, minus encrypted values naming nothing known. */
const routed = (options: HistoryOptions) => stageOperator(createHistoryStage(options), options);

describe("deriveHistory / the history stage's events (marbles)", () => {
  it("R-REASON-21 #78: a value for a message still streaming is stored; it opens and closes nothing", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-b-c-d-e-f-|", {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageContent("m1", "Let me"),
        d: ev.encryptedValue("message", "m1", "v1"),
        e: ev.reasoningMessageEnd("m1"),
        f: ev.runFinished(),
      });
      const w = collectWarnings();
      expectObservable(source.pipe(deriveHistory({ producer: P, onWarning: w.onWarning }))).toBe("x-b-c-d-e---|", {
        x: hist([]),
        b: hist([R("m1", "")], [open("m1")]),
        c: hist([R("m1", "Let me")], [open("m1")]),
        d: hist([R("m1", "Let me", { encryptedValue: "v1" })], [open("m1")], [issued("message", "m1")]),
        e: hist([R("m1", "Let me", { encryptedValue: "v1" })], [], [issued("message", "m1")]),
      });
      expectObservable(source.pipe(routed({ producer: P, onWarning: w.onWarning }))).toBe("a-b-c-d-e-f-|", {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageContent("m1", "Let me"),
        d: ev.encryptedValue("message", "m1", "v1"),
        e: ev.reasoningMessageEnd("m1"),
        f: ev.runFinished(),
      });
    });
  });

  it("D-UNKNOWN-ENTITY R-REASON-22: the history stage drops a value naming nothing known, warns once, and the run goes on", () => {
    createTestScheduler().run(({ cold, expectObservable, flush }) => {
      const source = cold("a-b-c-|", {
        a: ev.runStarted(),
        b: ev.encryptedValue("message", "nope", "secret-blob"),
        c: ev.runFinished(),
      });
      const w = collectWarnings();
      expectObservable(source.pipe(routed({ producer: P, onWarning: w.onWarning }))).toBe("a---c-|", {
        a: ev.runStarted(),
        c: ev.runFinished(),
      });
      flush();
      expect(w.codes()).toEqual(["UNKNOWN_ENTITY"]);
      expectWarning(w.warnings[0], {
        code: "UNKNOWN_ENTITY",
        rule: "D-UNKNOWN-ENTITY",
        eventType: "REASONING_ENCRYPTED_VALUE",
        eventIndex: 1,
        ids: ["nope"],
        lossy: true,
      });
      expectRedacted(w.warnings, "secret-blob");
    });
  });

  it("D-TRUNC (history side): on source completion open items become truncated and the final history is emitted", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-b-c-|", {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageContent("m1", "half"),
      });
      expectObservable(source.pipe(deriveHistory({ producer: P }))).toBe("x-b-c-(t|)", {
        x: hist([]),
        b: hist([R("m1", "")], [open("m1")]),
        c: hist([R("m1", "half")], [open("m1")]),
        t: hist([R("m1", "half")], [{ kind: "message", id: "m1", reason: "truncated" }]),
      });
    });
  });

  it("R-RUN-13 #99: a violation mid-run errors the history stream; histories delivered before it stay delivered", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-b-c-d-e-|", {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageContent("m1", "kept"),
        d: ev.reasoningMessageEnd("m1"),
        e: ev.reasoningMessageContent("m1", "orphan"),
      });
      expectObservable(source.pipe(deriveHistory({ producer: P }))).toBe(
        "x-b-c-d-#",
        {
          x: hist([]),
          b: hist([R("m1", "")], [open("m1")]),
          c: hist([R("m1", "kept")], [open("m1")]),
          d: hist([R("m1", "kept")]),
        },
        expect.objectContaining({ code: "ORPHAN_CONTENT", rule: "R-REASON-9", eventIndex: 4, ids: ["m1"] }),
      );
    });
  });

  it("D-ISSUER: every subscription starts from the same initial history object, seeded once", () => {
    const initialMessages: Message[] = [U("u1", "Hi", { encryptedValue: "uv" }) as Message];
    const derive = deriveHistory({ producer: P, initialMessages });
    const first: ReasoningHistory[] = [];
    const second: ReasoningHistory[] = [];
    from([ev.runStarted(), ev.runFinished()])
      .pipe(derive)
      .subscribe((h) => first.push(h));
    from([ev.runStarted(), ...text("a1", "Hello"), ev.runFinished()])
      .pipe(derive)
      .subscribe((h) => second.push(h));
    expect(first).toEqual([hist(initialMessages, [], [issued("message", "u1")])]);
    expect(second[0]).toBe(first[0]);
    expect(second.at(-1)).toEqual(hist([...initialMessages, A("a1", "Hello")], [], [issued("message", "u1")]));
    // The seed array is copied, never adopted or mutated.
    expect(first[0]!.messages).not.toBe(initialMessages);
    expect(initialMessages).toHaveLength(1);
  });

  it('R-META-5: events that change nothing in history emit nothing (identity decides "changed")', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-b-c-d-e-f-|", {
        a: ev.runStarted(),
        b: ev.reasoningStart("s1", { metadata: { k: 1 } }),
        c: ev.stepStarted("plan"),
        d: ev.stateSnapshot({ x: 1 }),
        e: ev.custom("c", 1),
        f: ev.reasoningEnd("s1", { metadata: { k: 2 } }),
      });
      expectObservable(source.pipe(deriveHistory({ producer: P }))).toBe("x-----------|", { x: hist([]) });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Encrypted values (operator c)
// ---------------------------------------------------------------------------------------------

describe("encrypted values", () => {
  it('R-REASON-15: subtype "message" stores on the message, "tool-call" on the ToolCall with that id', () => {
    const events = [
      ev.runStarted(),
      ...reasoning("m1", "think"),
      ...toolCall("tc1", "a1"),
      ev.encryptedValue("message", "m1", "v-msg"),
      ev.encryptedValue("tool-call", "tc1", "v-call"),
      ev.runFinished(),
    ];
    const r = run(events);
    expect(r.error).toBeUndefined();
    expect(r.out).toEqual(events);
    expect(r.warnings).toEqual([]);
    expect(r.history).toEqual(
      hist(
        [
          R("m1", "think", { encryptedValue: "v-msg" }),
          { id: "a1", role: "assistant", toolCalls: [call("tc1", "{}", { encryptedValue: "v-call" })] },
        ],
        [],
        [issued("message", "m1"), issued("tool-call", "tc1")],
      ),
    );
  });

  it("R-REASON-16: the value is opaque — stored and returned byte for byte, never parsed or normalised", () => {
    const values = [
      "  padded\n\t",
      "not base64 %%%",
      '{"looks":"like json"}',
      "ümlaut 🧠 \u0000 \ud800",
      "x".repeat(100_000),
    ];
    const events = [
      ev.runStarted(),
      ...values.flatMap((v, i) => [...reasoning(`m${i}`, "t"), ev.encryptedValue("message", `m${i}`, v)]),
      ev.runFinished(),
    ];
    const r = run(events);
    expect(r.warnings).toEqual([]);
    const input = toRunInputMessages(r.history, { producer: P, onWarning: () => {} });
    values.forEach((v, i) => {
      expect((r.history.messages[i] as { encryptedValue?: string }).encryptedValue).toBe(v);
      expect((input[i] as { encryptedValue?: string }).encryptedValue).toBe(v);
    });
  });

  it("R-REASON-17 #65: a stored value comes back unmodified in the next run's input, also through a new pipeline", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "opaque+/=blob\u00e9"),
      ev.runFinished(),
    ]);
    const input = toRunInputMessages(r.history, { producer: P });
    expect(input).toEqual([R("m1", "t", { encryptedValue: "opaque+/=blob\u00e9" })]);
    // Turn 2 continues from turn 1's history: the value is still the producer's.
    const turn2 = run([ev.runStarted("r2"), ...text("a2", "ok"), ev.runFinished("r2")], { initialHistory: r.history });
    expect(toRunInputMessages(turn2.history, { producer: P })).toEqual([
      R("m1", "t", { encryptedValue: "opaque+/=blob\u00e9" }),
      A("a2", "ok"),
    ]);
  });

  it("R-REASON-18 #67: a value naming an activity message is an unknown entity: warned, dropped, activity unchanged", () => {
    const before = run([ev.runStarted(), ev.activitySnapshot("act1", "search", { q: 1 })]);
    const r = run([
      ev.runStarted(),
      ev.activitySnapshot("act1", "search", { q: 1 }),
      ev.encryptedValue("message", "act1", "v"),
    ]);
    expect(r.history).toEqual(before.history);
    expect(r.history.messages[0]).toEqual({ id: "act1", role: "activity", activityType: "search", content: { q: 1 } });
    expect(r.out.map((e) => e.type)).toEqual(["RUN_STARTED", "ACTIVITY_SNAPSHOT"]);
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(r.warnings[0]!.message).toContain("activity message");
    expect(r.error).toBeUndefined();
  });

  it("R-REASON-19 #85: every dropped value is a lossy warning that `quiet` cannot silence", () => {
    const w = collectWarnings();
    const histories: ReasoningHistory[] = [];
    from([ev.runStarted(), ev.encryptedValue("tool-call", "tc9", "blob-1"), ev.runFinished()])
      .pipe(deriveHistory({ producer: P, quiet: true, onWarning: w.onWarning }))
      .subscribe((h) => histories.push(h));
    expect(w.warnings).toEqual([expect.objectContaining({ code: "UNKNOWN_ENTITY", lossy: true, ids: ["tc9"] })]);

    const withheld = collectWarnings();
    const h = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "blob-2"),
      ev.runFinished(),
    ]).history;
    toRunInputMessages(h, { producer: OTHER, quiet: true, onWarning: withheld.onWarning });
    expect(withheld.warnings).toEqual([expect.objectContaining({ code: "VALUE_WITHHELD", lossy: true, ids: ["m1"] })]);
    expectRedacted([...w.warnings, ...withheld.warnings], "blob-");
  });

  it("R-REASON-20 #87: a snapshot restating the message without its value withdraws it (and its issuer record); nothing resurrects it", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "v1"),
      snapshot([R("m1", "t (restated)")]),
      ev.runFinished(),
      ev.runStarted("r2"),
      ...text("a2", "later"),
      ev.runFinished("r2"),
    ]);
    expect(r.history).toEqual(hist([R("m1", "t (restated)"), A("a2", "later")]));
    expect(toRunInputMessages(r.history, { producer: P })).toEqual([R("m1", "t (restated)"), A("a2", "later")]);
  });

  it("R-REASON-22 #68: an unknown entityId is warned and dropped; no message is materialised and the state is untouched", () => {
    const stage = createHistoryStage({ producer: P });
    const s0 = stage.step(stage.init(), ev.runStarted(), { index: 0 }).state;
    const r = stage.step(s0, ev.encryptedValue("message", "nope", "v"), { index: 1 });
    expect(r.state).toBe(s0);
    expect(r.out).toEqual([]);
    expect(r.state.history).toEqual(hist([]));
    expect(r.warnings.map((w) => w.code)).toEqual(["UNKNOWN_ENTITY"]);
  });

  it("R-REASON-26 #86: values never travel to another producer; the copy drops them, the history keeps them", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ...toolCall("tc1", "a1"),
      ev.encryptedValue("message", "m1", "v1"),
      ev.encryptedValue("tool-call", "tc1", "v2"),
      ev.runFinished(),
    ]);
    const snapshotOfHistory = JSON.parse(JSON.stringify(r.history));
    const w = collectWarnings();
    const input = toRunInputMessages(r.history, { producer: OTHER, onWarning: w.onWarning });
    expect(input).toEqual([R("m1", "t"), { id: "a1", role: "assistant", toolCalls: [call("tc1")] }]);
    expect(w.codes()).toEqual(["VALUE_WITHHELD"]);
    expectWarning(w.warnings[0], { code: "VALUE_WITHHELD", rule: "D-ISSUER", ids: ["m1", "tc1"], lossy: true });
    expect(r.history).toEqual(snapshotOfHistory);
    expect(input[0]).not.toBe(r.history.messages[0]);
  });

  it("R-SCHEMA-8 #75: every role but activity holds a value: user, system, developer, assistant, tool, reasoning", () => {
    const initialMessages = [
      U("u1", "q"),
      { id: "sys", role: "system", content: "s" },
      { id: "dev", role: "developer", content: "d" },
    ] as Message[];
    const r = run(
      [
        ev.runStarted(),
        ...text("a1", "answer"),
        ...toolCall("tc1", "a1"),
        ev.toolCallResult("t1", "tc1", "result"),
        ...reasoning("m1", "t"),
        ...["u1", "sys", "dev", "a1", "t1", "m1"].map((id) => ev.encryptedValue("message", id, `v-${id}`)),
        ev.runFinished(),
      ],
      { initialMessages },
    );
    expect(r.warnings).toEqual([]);
    expect(r.history.messages.map((m) => [m.id, (m as { encryptedValue?: string }).encryptedValue])).toEqual([
      ["u1", "v-u1"],
      ["sys", "v-sys"],
      ["dev", "v-dev"],
      ["a1", "v-a1"],
      ["t1", "v-t1"],
      ["m1", "v-m1"],
    ]);
    // The tool message's record is its own (D-HISTORY-IDS: a tool message may share its id with another).
    expect(r.history.issuers).toEqual(
      ["u1", "sys", "dev", "a1", "t1", "m1"].map((id) =>
        id === "t1" ? { ...issued("message", id), toolMessage: true } : issued("message", id),
      ),
    );
  });

  it("R-SCHEMA-9: a tool-call value lands on the ToolCall inside whichever assistant message holds it, seeded ones included", () => {
    const initialMessages = [{ id: "old", role: "assistant", toolCalls: [call("tc0"), call("tc1")] }] as Message[];
    const r = run([ev.runStarted(), ev.encryptedValue("tool-call", "tc1", "v"), ev.runFinished()], { initialMessages });
    expect(r.history).toEqual(
      hist(
        [{ id: "old", role: "assistant", toolCalls: [call("tc0"), call("tc1", "{}", { encryptedValue: "v" })] }],
        [],
        [issued("tool-call", "tc1")],
      ),
    );
    // Untouched call objects keep their identity (the stage's own copy of the seed, D-NO-ALIAS).
    const seedHistory = createHistoryStage({ producer: P, initialMessages }).init().history;
    const untouched = (h: ReasoningHistory) => (h.messages[0] as { toolCalls: unknown[] }).toolCalls[0];
    expect(untouched(r.history)).toEqual(untouched(seedHistory));
    expect(untouched(r.history)).not.toBe((initialMessages[0] as { toolCalls: unknown[] }).toolCalls[0]);
  });

  it("D-ISSUER: the issuer is recorded beside the messages; values seeded from initialMessages are the producer's, initialHistory keeps its own", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "v"),
      ev.runFinished(),
    ]);
    expect(r.history.messages[0]).toEqual(R("m1", "t", { encryptedValue: "v" }));
    expect(Object.keys(r.history.messages[0]!)).not.toContain("issuer");
    expect(r.history.issuers).toEqual([issued("message", "m1")]);

    // No producer configured: the issuer is unknown and the value goes to nobody.
    const anonymous = run(
      [ev.runStarted(), ...reasoning("m1", "t"), ev.encryptedValue("message", "m1", "v"), ev.runFinished()],
      {
        producer: undefined,
      },
    );
    expect(anonymous.history.issuers).toEqual([{ subtype: "message", entityId: "m1", issuer: undefined }]);
    expect(toRunInputMessages(anonymous.history, { producer: P, onWarning: () => {} })).toEqual([R("m1", "t")]);

    // initialHistory: its issuers stand exactly (a value issued by OTHER stays OTHER's).
    const initialHistory = {
      ...hist([R("m1", "t", { encryptedValue: "v" })], [], [issued("message", "m1", OTHER)]),
      durations: [],
    } as ReasoningHistory;
    const seeded = run([ev.runStarted(), ev.runFinished()], {
      initialHistory,
      initialMessages: [U("ignored", "x") as Message],
    });
    expect(seeded.history).toEqual(initialHistory);
    expect(toRunInputMessages(seeded.history, { producer: OTHER })).toEqual([R("m1", "t", { encryptedValue: "v" })]);
    const w = collectWarnings();
    expect(toRunInputMessages(seeded.history, { producer: P, onWarning: w.onWarning })).toEqual([R("m1", "t")]);
    expect(w.codes()).toEqual(["VALUE_WITHHELD"]);
  });

  it("D-FORWARD #77: a value arriving before its message is unknown at arrival: dropped, not buffered, no message pre-created", () => {
    const r = run([
      ev.runStarted(),
      ev.encryptedValue("message", "m1", "early"),
      ...reasoning("m1", "t"),
      ev.runFinished(),
    ]);
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(r.history).toEqual(hist([R("m1", "t")]));
    expect(r.out.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "RUN_FINISHED",
    ]);
  });

  it("D-REPEAT #80: the last value wins; an identical repeat changes nothing", () => {
    const stage = createHistoryStage({ producer: P });
    const r = runStage(stage, [
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "first"),
      ev.encryptedValue("message", "m1", "second"),
    ]);
    expect(r.state.history).toEqual(hist([R("m1", "t", { encryptedValue: "second" })], [], [issued("message", "m1")]));
    const again = stage.step(r.state, ev.encryptedValue("message", "m1", "second"), { index: 6 });
    expect(again.state).toBe(r.state);
    expect(again.out).toEqual([ev.encryptedValue("message", "m1", "second")]);
  });

  it("D-UNKNOWN-ENTITY: never fails, whatever the unknown target (unknown id, span-only id, removed by a snapshot)", () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ...reasoning("m1", "t"),
      ev.reasoningEnd("s1"),
      snapshot([A("a1", "only this")]),
      ev.encryptedValue("message", "s1", "v1"),
      ev.encryptedValue("message", "m2", "v2"),
      ev.encryptedValue("tool-call", "tc1", "v3"),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    // m1 survives the snapshot (no reasoning in it), so only the three unknown targets are warned.
    expect(r.codes).toEqual(["UNKNOWN_ENTITY", "UNKNOWN_ENTITY", "UNKNOWN_ENTITY"]);
    expect(r.warnings.map((w) => w.ids)).toEqual([["s1"], ["m2"], ["tc1"]]);
    expect(r.warnings.every((w) => w.lossy === true && w.rule === "D-UNKNOWN-ENTITY")).toBe(true);
    expect(r.out.filter((e) => e.type === "REASONING_ENCRYPTED_VALUE")).toEqual([]);
    expect(r.history).toEqual(hist([R("m1", "t"), A("a1", "only this")]));
  });

  it("#66: a value for a ToolCall is stored on that call only, not on its assistant message", () => {
    const r = run([
      ev.runStarted(),
      ...text("a1", "x"),
      ...toolCall("tc1", "a1"),
      ev.encryptedValue("tool-call", "tc1", "v"),
    ]);
    expect(r.history.messages).toEqual([A("a1", "x", { toolCalls: [call("tc1", "{}", { encryptedValue: "v" })] })]);
  });

  it('#69: subtype "message" naming only a tool call id is an unknown entity', () => {
    const r = run([ev.runStarted(), ...toolCall("tc1", "a1"), ev.encryptedValue("message", "tc1", "v")]);
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(r.history.messages).toEqual([{ id: "a1", role: "assistant", toolCalls: [call("tc1")] }]);
  });

  it('#70: subtype "tool-call" naming a message id is an unknown entity', () => {
    const r = run([ev.runStarted(), ...reasoning("m1", "t"), ev.encryptedValue("tool-call", "m1", "v")]);
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(r.history.messages).toEqual([R("m1", "t")]);
  });

  it("#71: an unrecognised string subtype removes the event with a warning at /subtype; nothing is stored", () => {
    const r = run([ev.runStarted(), ...reasoning("m1", "t"), ev.encryptedValue("artifact", "m1", "v")]);
    expect(r.error).toBeUndefined();
    expect(r.out.map((e) => e.type)).not.toContain("REASONING_ENCRYPTED_VALUE");
    expect(r.warnings).toEqual([
      expect.objectContaining({
        code: "UNKNOWN_SUBTYPE",
        rule: "R-REASON-24",
        path: "/subtype",
        eventIndex: 4,
        lossy: true,
      }),
    ]);
    expect(r.history.messages).toEqual([R("m1", "t")]);
  });

  it("#72: a non-string subtype is malformed: MALFORMED_EVENT naming the event", () => {
    const r = run([ev.runStarted(), ...reasoning("m1", "t"), ev.encryptedValue("message", "m1", "v", { subtype: 7 })]);
    expect(r.error).toBeInstanceOf(ReasoningProtocolError);
    expect(r.error).toMatchObject({
      code: "MALFORMED_EVENT",
      rule: "R-PROC-4",
      eventIndex: 4,
      eventType: "REASONING_ENCRYPTED_VALUE",
    });
    expect((r.error as Error).message).toContain("`subtype` must be a string");
  });

  it("#73: a missing encryptedValue or entityId is malformed, and the error never shows a value", () => {
    const missingValue = run([
      ev.runStarted(),
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1" },
    ]);
    expect(missingValue.error).toMatchObject({ code: "MALFORMED_EVENT", eventIndex: 1 });
    const missingId = run([
      ev.runStarted(),
      { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", encryptedValue: "hidden-val" },
    ]);
    expect(missingId.error).toMatchObject({ code: "MALFORMED_EVENT", eventIndex: 1 });
    expectRedacted([missingId.error], "hidden-val");
  });

  it("#74: an empty encryptedValue is stored verbatim", () => {
    const r = run([ev.runStarted(), ...reasoning("m1", "t"), ev.encryptedValue("message", "m1", "")]);
    expect(r.history.messages).toEqual([R("m1", "t", { encryptedValue: "" })]);
    expect(toRunInputMessages(r.history, { producer: P })).toEqual([R("m1", "t", { encryptedValue: "" })]);
  });

  it("#76: a value for a message from the run input or an earlier run is stored", () => {
    const r = run([
      ev.runStarted("r1", { input: { threadId: "t1", runId: "r1", messages: [U("u1", "q")] } }),
      ...reasoning("m1", "t"),
      ev.runFinished("r1"),
      ev.runStarted("r2"),
      ev.encryptedValue("message", "u1", "vu"),
      ev.encryptedValue("message", "m1", "vm"),
      ev.runFinished("r2"),
    ]);
    expect(r.warnings).toEqual([]);
    expect(r.history).toEqual(
      hist(
        [U("u1", "q", { encryptedValue: "vu" }), R("m1", "t", { encryptedValue: "vm" })],
        [],
        [issued("message", "u1"), issued("message", "m1")],
      ),
    );
  });

  it("#79: a span id names no message; a message sharing the span's id does hold the value", () => {
    const spanOnly = run([
      ev.runStarted(),
      ev.reasoningStart("s1"),
      ev.reasoningEnd("s1"),
      ev.encryptedValue("message", "s1", "v"),
    ]);
    expect(spanOnly.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(spanOnly.history).toEqual(hist([]));
    const shared = run([
      ev.runStarted(),
      ev.reasoningStart("x"),
      ...reasoning("x", "t"),
      ev.reasoningEnd("x"),
      ev.encryptedValue("message", "x", "v"),
    ]);
    expect(shared.warnings).toEqual([]);
    expect(shared.history.messages).toEqual([R("x", "t", { encryptedValue: "v" })]);
  });

  it("#81: the value event's metadata lands nowhere", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "v", { metadata: { provider: "x" } }),
    ]);
    expect(r.history.messages).toEqual([R("m1", "t", { encryptedValue: "v" })]);
  });

  it("#82: a 1.1 encryptedValueType on the event is never stored (the value alone is)", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "v", { encryptedValueType: "acme.thinking" }),
    ]);
    expect(r.history.messages).toEqual([R("m1", "t", { encryptedValue: "v" })]);
  });

  it("#83: a value tagged with another subagent is stored (the tag is provenance only)", () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningMessageStart("m1", { subagentRunId: "A" }),
      ev.reasoningMessageEnd("m1"),
      ev.encryptedValue("message", "m1", "v", { subagentRunId: "B" }),
    ]);
    expect(r.history.messages).toEqual([R("m1", "", { subagentRunId: "A", encryptedValue: "v" })]);
  });

  it("#84: a value outside any span is stored", () => {
    const r = run([
      ev.runStarted(),
      ...text("a1", "answer"),
      ev.encryptedValue("message", "a1", "v"),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(hist([A("a1", "answer", { encryptedValue: "v" })], [], [issued("message", "a1")]));
  });
});

// ---------------------------------------------------------------------------------------------
// Messages, tool calls and metadata
// ---------------------------------------------------------------------------------------------

describe("message families", () => {
  it('R-SCHEMA-10: a reasoning message is {id, role: "reasoning", content} — content "" when empty, never a name', () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningMessageStart("m1", { name: "thinker" }),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(hist([{ id: "m1", role: "reasoning", content: "" }]));
    expect(Object.keys(r.history.messages[0]!)).toEqual(["id", "role", "content"]);
  });

  it("R-TEXT-5 #4: a reopened message appends in place and keeps its position", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "a"),
      ...text("a1", "answer"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "b"),
      ev.reasoningMessageEnd("m1"),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(hist([R("m1", "ab"), A("a1", "answer")]));
    // Same for text messages (fixture reopen-closed-message-appends).
    const t = run([ev.runStarted(), ...text("a1", "First half."), ...text("a1", " Second half."), ev.runFinished()]);
    expect(t.history).toEqual(hist([A("a1", "First half. Second half.")]));
  });

  it("R-RUN-10: across runs messages accumulate; a START in run 2 for a held id appends to it", () => {
    const r = run([
      ev.runStarted("r1"),
      ...reasoning("m1", "first"),
      ...text("a1", "one"),
      ev.runFinished("r1"),
      ev.runStarted("r2"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", " more"),
      ev.reasoningMessageEnd("m1"),
      ...text("a2", "two"),
      ev.runFinished("r2"),
    ]);
    expect(r.history).toEqual(hist([R("m1", "first more"), A("a1", "one"), A("a2", "two")]));
  });

  it("R-STATE-8: RUN_STARTED.input.messages adds the messages not yet held (in order); values on them are the producer's", () => {
    const r = run(
      [
        ev.runStarted("r1", {
          input: {
            threadId: "t1",
            runId: "r1",
            messages: [
              U("u0", "held copy"),
              U("u1", "new", { encryptedValue: "vu" }),
              { id: "a1", role: "assistant", toolCalls: [call("tc1", "{}", { encryptedValue: "vt" })] },
            ],
          },
        }),
        ev.runFinished("r1"),
      ],
      { initialMessages: [U("u0", "original") as Message] },
    );
    expect(r.history).toEqual(
      hist(
        [
          U("u0", "original"),
          U("u1", "new", { encryptedValue: "vu" }),
          { id: "a1", role: "assistant", toolCalls: [call("tc1", "{}", { encryptedValue: "vt" })] },
        ],
        [],
        [issued("message", "u1"), issued("tool-call", "tc1")],
      ),
    );
    // The seeded call is indexed: a later value reaches it.
    const later = runStage(createHistoryStage({ producer: P, initialHistory: r.history }), [
      ev.runStarted("r2"),
      ev.encryptedValue("tool-call", "tc1", "vt2"),
    ]);
    expect((later.state.history.messages[2] as { toolCalls: unknown[] }).toolCalls).toEqual([
      call("tc1", "{}", { encryptedValue: "vt2" }),
    ]);
  });

  it("R-TEXT-3: a text message is {id, role (default assistant), content} plus name and subagentRunId when given", () => {
    const r = run([
      ev.runStarted(),
      ev.textStart("a1", undefined),
      ev.textEnd("a1"),
      ev.textStart("u1", "user", { name: "Ada", subagentRunId: "sub-1" }),
      ev.textContent("u1", "hi"),
      ev.textEnd("u1"),
    ]);
    expect(r.history.messages).toEqual([A("a1", ""), U("u1", "hi", { name: "Ada", subagentRunId: "sub-1" })]);
  });

  it("R-META-4: metadata of START/CONTENT/END merges key by key, last write wins, without recursing", () => {
    const r = run([
      ev.runStarted(),
      ev.textStart("m1", "assistant", { metadata: { a: 1, b: 1, trace: ["one", "two"], nested: { x: 1 } } }),
      ev.textContent("m1", "done", { metadata: { b: 2, c: 3, trace: ["three"], nested: { y: 2 } } }),
      ev.textEnd("m1", { metadata: { d: null } }),
      ev.reasoningMessageStart("r1", { metadata: { k: "start" } }),
      ev.reasoningMessageContent("r1", "", { metadata: { k: "content", empty: "" } }),
      ev.reasoningMessageEnd("r1", { metadata: { done: true } }),
      ev.runFinished(),
    ]);
    expect(r.history.messages).toEqual([
      A("m1", "done", { metadata: { a: 1, b: 2, c: 3, trace: ["three"], nested: { y: 2 }, d: null } }),
      R("r1", "", { metadata: { k: "content", empty: "", done: true } }),
    ]);
  });

  it("R-SCHEMA-3: an empty delta appends nothing — with metadata it merges the metadata and still adds no content", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "a1"),
      ev.textStart("a1"),
      ev.textContent("a1", "", { metadata: { k: 1 } }),
      ev.textEnd("a1"),
    ]);
    expect(r.history.messages).toEqual([{ id: "a1", role: "assistant", toolCalls: [call("tc1")], metadata: { k: 1 } }]);
    expect(Object.keys(r.history.messages[0]!)).not.toContain("content");
  });

  it("R-META-5: REASONING_START / REASONING_END / REASONING_ENCRYPTED_VALUE metadata lands on nothing", () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningStart("s1", { metadata: { span: 1 } }),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageEnd("m1"),
      ev.encryptedValue("message", "m1", "v", { metadata: { value: 1 } }),
      ev.reasoningEnd("s1", { metadata: { span: 2 } }),
      ev.runFinished("r1", { metadata: { run: 1 } }),
    ]);
    expect(r.history.messages).toEqual([R("m1", "", { encryptedValue: "v" })]);
  });

  it("R-TOOL-1: a call goes onto the assistant message parentMessageId names (created when not held); without one, onto a new assistant message with the call's id", () => {
    const r = run([
      ev.runStarted(),
      ...text("a1", "Looking it up."),
      ...toolCall("tc1", "a1", '{"q":'),
      ev.toolCallStart("tc2", "lookup", { parentMessageId: "a1" }),
      ev.toolCallEnd("tc2"),
      ...toolCall("tc3", "a9"),
      ev.toolCallStart("tc4", "search", { subagentRunId: "sub-1" }),
      ev.toolCallArgs("tc4", "{"),
      ev.toolCallArgs("tc4", "}"),
      ev.toolCallEnd("tc4"),
      ev.runFinished(),
    ]);
    expect(r.warnings).toEqual([]);
    expect(r.history).toEqual(
      hist([
        A("a1", "Looking it up.", {
          toolCalls: [
            call("tc1", '{"q":'),
            { id: "tc2", type: "function", function: { name: "lookup", arguments: "" } },
          ],
        }),
        { id: "a9", role: "assistant", toolCalls: [call("tc3")] },
        { id: "tc4", role: "assistant", subagentRunId: "sub-1", toolCalls: [call("tc4")] },
      ]),
    );
  });

  it("R-TOOL-1: parentMessageId naming a non-assistant message falls back to the call's id, with a warning", () => {
    const r = run([ev.runStarted(), ...text("u1", "q", "user"), ...toolCall("tc1", "u1")]);
    expect(r.codes).toEqual(["TOOL_CALL_PARENT_CONFLICT"]);
    expectWarning(r.warnings[0], { rule: "R-TOOL-1", ids: ["tc1", "u1"], eventIndex: 4 });
    expect(r.history.messages).toEqual([U("u1", "q"), { id: "tc1", role: "assistant", toolCalls: [call("tc1")] }]);
  });

  it("R-TOOL-3: a result is its own tool message, right after the call's assistant message; message and tool-call values go to their own targets", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "a1"),
      ...toolCall("tc2", "a1"),
      ...reasoning("m2", "next"),
      ev.toolCallResult("t1", "tc1", "one"),
      ev.toolCallResult("t2", "tc2", [{ type: "text", text: "two" }] as unknown as string, { metadata: { ms: 3 } }),
      ev.toolCallResult("t3", "tc-unknown", "three"),
      ev.encryptedValue("message", "t1", "v-msg"),
      ev.encryptedValue("tool-call", "tc1", "v-call"),
      ev.runFinished(),
    ]);
    expect(r.warnings).toEqual([]);
    expect(r.history).toEqual(
      hist(
        [
          { id: "a1", role: "assistant", toolCalls: [call("tc1", "{}", { encryptedValue: "v-call" }), call("tc2")] },
          { id: "t1", role: "tool", toolCallId: "tc1", content: "one", encryptedValue: "v-msg" },
          { id: "t2", role: "tool", toolCallId: "tc2", content: [{ type: "text", text: "two" }], metadata: { ms: 3 } },
          R("m2", "next"),
          { id: "t3", role: "tool", toolCallId: "tc-unknown", content: "three" },
        ],
        [],
        [{ ...issued("message", "t1"), toolMessage: true }, issued("tool-call", "tc1")],
      ),
    );
    // The insertion re-indexed the messages after it: later events still find them.
    const after = runStage(createHistoryStage({ producer: P, initialHistory: r.history }), [
      ev.runStarted("r2"),
      ev.reasoningMessageStart("m2"),
      ev.reasoningMessageContent("m2", "!"),
      ev.encryptedValue("message", "t3", "v3"),
    ]);
    expect(after.state.history.messages.map((m) => [m.id, (m as { content?: unknown }).content])).toEqual([
      ["a1", undefined],
      ["t1", "one"],
      ["t2", [{ type: "text", text: "two" }]],
      ["m2", "next!"],
      ["t3", "three"],
    ]);
    expect((after.state.history.messages[4] as { encryptedValue?: string }).encryptedValue).toBe("v3");
  });

  it("R-TOOL-5: tool-call event metadata accumulates on the call, not on its assistant message", () => {
    const r = run([
      ev.runStarted(),
      ev.toolCallStart("tc1", "search", { parentMessageId: "m1", metadata: { provider: "acme", attempt: 1 } }),
      ev.toolCallArgs("tc1", '{"q":"ag-ui"}', { metadata: { bytes: 12 } }),
      ev.toolCallEnd("tc1", { metadata: { attempt: 2 } }),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(
      hist([
        {
          id: "m1",
          role: "assistant",
          toolCalls: [call("tc1", '{"q":"ag-ui"}', { metadata: { provider: "acme", attempt: 2, bytes: 12 } })],
        },
      ]),
    );
  });

  it("R-TOOL-2: a reopened call appends arguments; its established name stands", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "a1", '{"a":'),
      ev.toolCallStart("tc1", "renamed", { parentMessageId: "a1" }),
      ev.toolCallArgs("tc1", "1}"),
      ev.toolCallEnd("tc1"),
    ]);
    expect(r.history).toEqual(hist([{ id: "a1", role: "assistant", toolCalls: [call("tc1", '{"a":1}')] }]));
  });

  it("#97: a new message takes its place at START arrival; a reasoning message precedes the answer it preceded", () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningStart("span-1"),
      ev.reasoningMessageStart("m-1"),
      ev.textStart("m-2"),
      ev.reasoningMessageContent("m-1", "weighing "),
      ev.textContent("m-2", "the answer"),
      ev.reasoningMessageContent("m-1", "the options"),
      ev.reasoningMessageEnd("m-1"),
      ev.reasoningEnd("span-1"),
      ev.textEnd("m-2"),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(hist([R("m-1", "weighing the options"), A("m-2", "the answer")]));
  });
});

// ---------------------------------------------------------------------------------------------
// MESSAGES_SNAPSHOT reconciliation
// ---------------------------------------------------------------------------------------------

describe("MESSAGES_SNAPSHOT", () => {
  it("R-STATE-4: same-id messages are replaced in place, newcomers appended in snapshot order", () => {
    const r = run([
      ev.runStarted(),
      ...text("a", "first draft"),
      ...text("b", "retracted"),
      ...text("c", "kept"),
      snapshot([A("n2", "new 2"), A("c", "kept, restated"), A("n1", "new 1"), A("a", "first draft, corrected")]),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(
      hist([A("a", "first draft, corrected"), A("c", "kept, restated"), A("n2", "new 2"), A("n1", "new 1")]),
    );
  });

  it("R-STATE-5 #91: held messages the snapshot omits are dropped, except activity and reasoning messages (kept in place)", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("r1", "thinking"),
      ev.activitySnapshot("act1", "search", { found: 1 }),
      ...text("u1", "question", "user"),
      snapshot([A("a1", "answer")]),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(
      hist([
        R("r1", "thinking"),
        { id: "act1", role: "activity", activityType: "search", content: { found: 1 } },
        A("a1", "answer"),
      ]),
    );
  });

  it("R-STATE-6 #92: a snapshot carrying any reasoning message declares the reasoning set: held ones not in it go, values included", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("r1", "old"),
      ev.encryptedValue("message", "r1", "v1"),
      ...reasoning("r2", "two"),
      snapshot([R("r2", "two, restated"), R("r3", "three")]),
      ev.encryptedValue("message", "r1", "late"),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(hist([R("r2", "two, restated"), R("r3", "three")]));
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
  });

  it("R-STATE-6 #93: a snapshot of only activity messages declares the activity set; absent reasoning messages are still kept", () => {
    const r = run([
      ev.runStarted(),
      ev.activitySnapshot("act1", "search", { n: 1 }),
      ...reasoning("r1", "kept"),
      ev.activitySnapshot("act2", "search", { n: 2 }),
      snapshot([{ id: "act3", role: "activity", activityType: "plan", content: { steps: [] } }]),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(
      hist([R("r1", "kept"), { id: "act3", role: "activity", activityType: "plan", content: { steps: [] } }]),
    );
  });

  it("R-STATE-7: a snapshot message's ownership comes from the message itself", () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningMessageStart("r1", { subagentRunId: "A" }),
      ev.reasoningMessageEnd("r1"),
      snapshot([R("r1", "restated"), A("a1", "by B", { subagentRunId: "B" })]),
    ]);
    expect(r.history.messages).toEqual([R("r1", "restated"), A("a1", "by B", { subagentRunId: "B" })]);
  });

  it("#88 #89: a restated value replaces the stored one (issued by the producer); a later value lands on the snapshot's copy", () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      ev.encryptedValue("message", "m1", "v1"),
      snapshot([R("m1", "t", { encryptedValue: "v2" })]),
    ]);
    expect(r.history).toEqual(hist([R("m1", "t", { encryptedValue: "v2" })], [], [issued("message", "m1")]));
    const later = run([
      ev.runStarted(),
      ...reasoning("m1", "t"),
      snapshot([R("m1", "restated", { metadata: { from: "snapshot" } })]),
      ev.encryptedValue("message", "m1", "v3"),
    ]);
    expect(later.history).toEqual(
      hist(
        [R("m1", "restated", { metadata: { from: "snapshot" }, encryptedValue: "v3" })],
        [],
        [issued("message", "m1")],
      ),
    );
  });

  it("#90: a snapshot restating the assistant message withdraws a tool call's value its copy omits", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "a1"),
      ev.encryptedValue("tool-call", "tc1", "v"),
      snapshot([{ id: "a1", role: "assistant", toolCalls: [call("tc1")] }]),
      ev.runFinished(),
    ]);
    expect(r.history).toEqual(hist([{ id: "a1", role: "assistant", toolCalls: [call("tc1")] }]));
    expect(toRunInputMessages(r.history, { producer: P })).toEqual([
      { id: "a1", role: "assistant", toolCalls: [call("tc1")] },
    ]);
  });

  it("#94: held [u1, r1, a1] and snapshot [a1', n1] give [r1, a1', n1]", () => {
    const r = run([ev.runStarted(), snapshot([A("a1", "restated"), A("n1", "new")]), ev.runFinished()], {
      initialMessages: [U("u1", "q"), R("r1", "t"), A("a1", "old")] as Message[],
    });
    expect(r.history).toEqual(hist([R("r1", "t"), A("a1", "restated"), A("n1", "new")]));
  });

  it("#95: a snapshot message with an unrecognised role is dropped from the list with a warning; the rest reconciles", () => {
    const r = run([
      ev.runStarted(),
      snapshot([A("a1", "ok"), { id: "c1", role: "critic", content: "?" }, A("a2", "ok too")]),
    ]);
    expect(r.history.messages).toEqual([A("a1", "ok"), A("a2", "ok too")]);
    expect(r.warnings).toEqual([
      expect.objectContaining({ code: "UNKNOWN_UNION_MEMBER", path: "/messages/1/role", ids: ["c1"], eventIndex: 1 }),
    ]);
  });

  it("#96: an activity message never holds a value: no issuer record from a snapshot copy, and a value naming it is unknown", () => {
    const r = run([
      ev.runStarted(),
      snapshot([{ id: "act1", role: "activity", activityType: "x", content: {}, encryptedValue: "stray" }]),
      ev.encryptedValue("message", "act1", "v"),
    ]);
    expect(r.history.issuers).toEqual([]);
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(toRunInputMessages(r.history, { producer: P })).toEqual([]);
  });

  it("D-SNAPSHOT-OPEN: later fragments of an open message the snapshot removed are not applied (TARGET_REMOVED); a restated one keeps streaming", () => {
    const r = run([
      ev.runStarted(),
      ev.textStart("a1"),
      ev.textContent("a1", "gone "),
      ev.textStart("a2"),
      ev.textContent("a2", "kept "),
      ev.toolCallStart("tc1", "search", { parentMessageId: "a3" }),
      snapshot([A("a2", "restated ")]),
      ev.textContent("a1", "lost"),
      ev.textContent("a2", "and continued"),
      ev.toolCallArgs("tc1", "{}"),
      ev.textEnd("a1"),
      ev.textEnd("a2"),
      ev.toolCallEnd("tc1", { metadata: { late: true } }),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.history).toEqual(hist([A("a2", "restated and continued")]));
    expect(r.codes).toEqual(["TARGET_REMOVED", "TARGET_REMOVED", "TARGET_REMOVED"]);
    expect(r.warnings.map((w) => [w.ids, w.eventIndex, w.lossy, w.rule])).toEqual([
      [["a1"], 7, true, "D-SNAPSHOT-OPEN"],
      [["tc1"], 9, true, "D-SNAPSHOT-OPEN"],
      [["tc1"], 12, true, "D-SNAPSHOT-OPEN"],
    ]);
    expect(r.warnings[0]!.message).toContain("4 bytes");
    expectRedacted(r.warnings, "lost");
    // While open, the removed message left `incomplete`; the restated one stayed listed.
    const mid = stepAll([ev.runStarted(), ev.textStart("a1"), ev.textStart("a2"), snapshot([A("a2", "")])]);
    expect(mid.state.history.incomplete).toEqual([open("a2")]);
    // A keep-alive (empty delta, no metadata) for a removed message loses nothing: no warning.
    const quiet = run([
      ev.runStarted(),
      ev.textStart("a1"),
      snapshot([]),
      ev.textContent("a1", ""),
      ev.textEnd("a1"),
      ev.runFinished(),
    ]);
    expect(quiet.warnings).toEqual([]);
    expect(quiet.history).toEqual(hist([]));
  });
});

// ---------------------------------------------------------------------------------------------
// Incompleteness: RUN_ERROR and truncation
// ---------------------------------------------------------------------------------------------

describe("incomplete items", () => {
  it('D-RUN-ERROR (history side) #19: RUN_ERROR turns open items into "abandoned"; partial content stays', () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "par"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
      ev.toolCallArgs("tc1", '{"q'),
      ...text("a2", "done"),
      ev.runError("boom"),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.out.at(-1)).toEqual(ev.runError("boom"));
    expect(r.history).toEqual(
      hist(
        [R("m1", "par"), { id: "a1", role: "assistant", toolCalls: [call("tc1", '{"q')] }, A("a2", "done")],
        [
          { kind: "message", id: "m1", reason: "abandoned" },
          { kind: "tool-call", id: "tc1", reason: "abandoned" },
        ],
      ),
    );
  });

  it("R-RUN-13: after RUN_ERROR nothing is open: a fragment is an orphan, a new START reopens and END completes it", () => {
    const abandoned = [
      ev.runStarted(),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "a"),
      ev.runError(),
    ];
    const orphan = run([...abandoned, ev.runStarted("r2"), ev.reasoningMessageContent("m1", "x")]);
    expect(orphan.error).toMatchObject({ code: "ORPHAN_CONTENT", rule: "R-REASON-9", eventIndex: 5, ids: ["m1"] });
    expect(orphan.history).toEqual(hist([R("m1", "a")], [{ kind: "message", id: "m1", reason: "abandoned" }]));

    const reopened = run([
      ...abandoned,
      ev.runStarted("r2"),
      ev.reasoningMessageStart("m1"),
      ev.reasoningMessageContent("m1", "b"),
    ]);
    expect(reopened.history).toEqual(hist([R("m1", "ab")], [{ kind: "message", id: "m1", reason: "truncated" }]));
    const closed = run([...abandoned, ev.runStarted("r2"), ...reasoning("m1", "b"), ev.runFinished("r2")]);
    expect(closed.history).toEqual(hist([R("m1", "ab")]));
  });

  it("D-TRUNC (history side): finish marks what this pipeline has open as truncated; a seed's items keep their reason", () => {
    const initialHistory = {
      ...hist([R("old", "x")], [{ kind: "message", id: "old", reason: "abandoned" }]),
      durations: [],
    } as ReasoningHistory;
    const r = run([ev.runStarted(), ...toolCall("tc1", "a1").slice(0, 2), ev.textStart("a2")], { initialHistory });
    expect(r.history).toEqual(
      hist(
        [R("old", "x"), { id: "a1", role: "assistant", toolCalls: [call("tc1")] }, A("a2", "")],
        [
          { kind: "message", id: "old", reason: "abandoned" },
          { kind: "tool-call", id: "tc1", reason: "truncated" },
          { kind: "message", id: "a2", reason: "truncated" },
        ],
      ),
    );
    // A clean end changes nothing (same state, no new history).
    const stage = createHistoryStage({ producer: P });
    const done = runStage(stage, [ev.runStarted(), ...text("a1", "x"), ev.runFinished()]);
    expect(stage.finish!(done.state, { index: 5 }).state).toBe(done.state);
  });
});

// ---------------------------------------------------------------------------------------------
// Run input
// ---------------------------------------------------------------------------------------------

describe("toRunInputMessages", () => {
  it("R-INPUT-3 #98: the input is the whole history: reasoning messages and tool calls with their values, metadata included", () => {
    const r = run([
      ev.runStarted(),
      ...text("u1", "q", "user"),
      ...reasoning("m1", "t"),
      ...toolCall("tc1", "a1"),
      ev.toolCallResult("t1", "tc1", "r", { metadata: { ms: 1 } }),
      ev.encryptedValue("message", "m1", "v1"),
      ev.encryptedValue("tool-call", "tc1", "v2"),
      ev.runFinished(),
    ]);
    const w = collectWarnings();
    expect(toRunInputMessages(r.history, { producer: P, onWarning: w.onWarning })).toEqual([
      U("u1", "q"),
      R("m1", "t", { encryptedValue: "v1" }),
      { id: "a1", role: "assistant", toolCalls: [call("tc1", "{}", { encryptedValue: "v2" })] },
      { id: "t1", role: "tool", toolCallId: "tc1", content: "r", metadata: { ms: 1 } },
    ]);
    expect(w.warnings).toEqual([]);
  });

  it("R-INPUT-4: activity messages never travel back; reasoning messages do", () => {
    const r = run([ev.runStarted(), ev.activitySnapshot("act1"), ...reasoning("m1", "t"), ev.runFinished()]);
    expect(r.history.messages.map((m) => m.role)).toEqual(["activity", "reasoning"]);
    expect(toRunInputMessages(r.history, { producer: P })).toEqual([R("m1", "t")]);
  });

  it("R-INPUT-3: the copies are new objects; mutating them leaves the history alone", () => {
    const r = run([ev.runStarted(), ...toolCall("tc1", "a1"), ev.runFinished()]);
    const input = toRunInputMessages(r.history, { producer: P }) as Array<{
      toolCalls: Array<{ function: { name: string } }>;
    }>;
    input[0]!.toolCalls[0]!.function.name = "changed";
    input[0]!.toolCalls.push({ function: { name: "x" } });
    expect(r.history.messages).toEqual([{ id: "a1", role: "assistant", toolCalls: [call("tc1")] }]);
    expect(() => toRunInputMessages(r.history, {} as never)).toThrow(TypeError);
  });
});

// ---------------------------------------------------------------------------------------------
// Activity, guards, structure
// ---------------------------------------------------------------------------------------------

describe("activity messages", () => {
  it("R-ACT-5: a snapshot creates the message, a delta patches its content and type; metadata survives replacement", () => {
    const r = run([
      ev.runStarted(),
      ev.activitySnapshot("act", "web_search", { query: "ag-ui", found: 0 }, { metadata: { a: 1 } }),
      activityDelta("act", "web_search", [{ op: "replace", path: "/found", value: 3 }]),
      ev.activitySnapshot("act", "file_search", { n: 1 }, { subagentRunId: "sub", metadata: { b: 2 } }),
      ev.activitySnapshot("act", "ignored", { n: 9 }, { replace: false, metadata: { c: 3 } }),
      ev.runFinished(),
    ]);
    expect(r.warnings).toEqual([]);
    expect(r.history.messages).toEqual([
      {
        id: "act",
        role: "activity",
        activityType: "file_search",
        content: { n: 1 },
        subagentRunId: "sub",
        metadata: { a: 1, b: 2, c: 3 },
      },
    ]);
  });

  it("R-ACT-5: a delta for a missing or non-activity message, or one that does not apply, is skipped with a lossy warning", () => {
    const r = run([
      ev.runStarted(),
      ...text("a1", "x"),
      ev.activitySnapshot("act", "s", { found: 0 }),
      activityDelta("never", "s", [{ op: "replace", path: "/found", value: 3 }]),
      activityDelta("a1", "s", [{ op: "replace", path: "/found", value: 3 }]),
      activityDelta("act", "s", [
        { op: "replace", path: "/found", value: 1 },
        { op: "remove", path: "/missing" },
      ]),
      ev.activitySnapshot("a1", "s", {}),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["ACTIVITY_SKIPPED", "ACTIVITY_SKIPPED", "ACTIVITY_SKIPPED", "ACTIVITY_SKIPPED"]);
    expect(r.warnings.every((w) => w.lossy === true)).toBe(true);
    expect(r.warnings.map((w) => w.rule)).toEqual(["R-ACT-5", "R-ACT-5", "R-ACT-5", "D-ACTIVITY-REPLACE"]);
    expect(r.history.messages).toEqual([
      A("a1", "x"),
      { id: "act", role: "activity", activityType: "s", content: { found: 0 } },
    ]);
  });

  it("D-ACTIVITY-REPLACE: ACTIVITY_SNAPSHOT replace:true naming a held conversation message keeps the message and skips the snapshot (ids only)", () => {
    const r = run([
      ev.runStarted(),
      ...text("a1", "secret answer"),
      ev.activitySnapshot("a1", "plan", { steps: ["secret step"] }, { replace: true }),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.warnings).toHaveLength(1);
    expectWarning(r.warnings[0], {
      code: "ACTIVITY_SKIPPED",
      rule: "D-ACTIVITY-REPLACE",
      eventIndex: 4,
      ids: ["a1"],
      lossy: true,
    });
    expectRedacted(r.warnings, "secret");
    expect(r.history.messages).toEqual([A("a1", "secret answer")]);
  });

  it("R-META-4: an activity delta whose patch does not apply still merges its metadata; the content stays as it was (ACTIVITY_SKIPPED)", () => {
    const r = run([
      ev.runStarted(),
      ev.activitySnapshot("act", "s", { found: 0 }, { metadata: { a: 1 } }),
      { ...activityDelta("act", "s", [{ op: "remove", path: "/missing" }]), metadata: { b: 2 } },
      { ...activityDelta("act", "s", [{ op: "replace", path: "", value: [1] }]), metadata: { a: 3 } },
      activityDelta("act", "s", [{ op: "remove", path: "/missing" }]),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["ACTIVITY_SKIPPED", "ACTIVITY_SKIPPED", "ACTIVITY_SKIPPED"]);
    expect(r.warnings.map((w) => w.message.includes("metadata was merged"))).toEqual([true, true, false]);
    expect(r.history.messages).toEqual([
      { id: "act", role: "activity", activityType: "s", content: { found: 0 }, metadata: { a: 3, b: 2 } },
    ]);
  });
});

describe("guards", () => {
  it("R-REASON-9: a fragment naming nothing open fails; the history never invents the message", () => {
    const r = run([ev.runStarted(), ev.textContent("t9", "x")]);
    expect(r.error).toMatchObject({ code: "ORPHAN_CONTENT", rule: "R-TEXT-9", eventIndex: 1, ids: ["t9"] });
    expect(r.history).toEqual(hist([]));
    expect(run([ev.runStarted(), ev.toolCallEnd("tc9")]).error).toMatchObject({
      code: "ORPHAN_END",
      rule: "R-TOOL-6",
      ids: ["tc9"],
    });
    expect(run([ev.runStarted(), ...reasoning("m1", "t"), ev.reasoningMessageEnd("m1")]).error).toMatchObject({
      code: "ORPHAN_END",
      eventIndex: 4,
    });
    expect(run([ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageStart("m1")]).error).toMatchObject({
      code: "DUPLICATE_OPEN",
      rule: "R-REASON-11",
      eventIndex: 2,
    });
  });

  it("R-TOOL-2 R-PROC-4: a seeded tool call holding only its id (or a `function` that throws), reopened and ended, stays as held", () => {
    // `initialMessages` are checked for ids and roles only: a call may lack `function` (and its arguments).
    const seeded = [
      { id: "a1", role: "assistant", toolCalls: [{ id: "tc1", type: "function" }] },
    ] as unknown as Message[];
    const r = run([ev.runStarted(), ev.toolCallStart("tc1", "f", { parentMessageId: "a1" }), ev.toolCallEnd("tc1")], {
      initialMessages: seeded,
    });
    expect(r.error).toBeUndefined();
    expect(r.history.messages).toEqual(seeded);
    expect(r.history.incomplete).toEqual([]);
    // A seed whose call's `function` getter throws is refused when the stage is made (its own copy is
    // taken then, D-NO-ALIAS): a TypeError naming the message, never the getter's error (D-REDACT).
    const hostile = {
      id: "tc1",
      type: "function",
      get function(): never {
        throw new Error("hostile");
      },
    };
    const held = [{ id: "a1", role: "assistant", toolCalls: [hostile] }] as unknown as Message[];
    expect(() => createHistoryStage({ producer: P, initialMessages: held })).toThrow(
      new TypeError("agui-reasoning: initialMessages[0] cannot be read (a read of it threw)"),
    );
  });

  it("R-TEXT-5 R-PROC-4 D-NO-ALIAS: a seeded message whose content getter throws is refused when the stage is made, never read mid-run", () => {
    // Ending a message reads its content (to flatten it): a seed's hostile getter must not fail a run, so
    // the seed is read (copied) once, when the stage is made, and refused there naming the message.
    const seeded = {
      id: "a1",
      role: "assistant",
      get content(): string {
        throw new Error("hostile");
      },
    } as unknown as Message;
    expect(() => createHistoryStage({ producer: P, initialMessages: [seeded] })).toThrow(
      new TypeError("agui-reasoning: initialMessages[0] cannot be read (a read of it threw)"),
    );
  });

  it("D-ROLE-CONFLICT: a START naming a held message of another family fails with ID_ROLE_CONFLICT", () => {
    expect(run([ev.runStarted(), ...text("a1", "x"), ev.reasoningMessageStart("a1")]).error).toMatchObject({
      code: "ID_ROLE_CONFLICT",
      rule: "D-ROLE-CONFLICT",
      eventIndex: 4,
      ids: ["a1"],
    });
    expect(run([ev.runStarted(), ...reasoning("m1", "t"), ev.textStart("m1")]).error).toMatchObject({
      code: "ID_ROLE_CONFLICT",
    });
    expect(run([ev.runStarted(), ev.reasoningMessageStart("m1"), ev.textContent("m1", "x")]).error).toMatchObject({
      code: "ORPHAN_CONTENT",
    });
  });

  it("R-PROC-4: malformed input is a ReasoningProtocolError naming index, type and field — never a TypeError", () => {
    const cases: Array<[unknown, string]> = [
      [null, "<non-object: null>"],
      [42, "<non-object: number>"],
      [{ type: 5 }, "<no type>"],
      [ev.textStart(7 as unknown as string), "TEXT_MESSAGE_START"],
      [ev.textStart("a1", "critic"), "TEXT_MESSAGE_START"],
      [ev.reasoningMessageStart("m1", { role: "assistant" }), "REASONING_MESSAGE_START"],
      [ev.reasoningMessageStart("m1", { metadata: null }), "REASONING_MESSAGE_START"],
      [ev.messagesSnapshot("nope" as unknown as Message[]), "MESSAGES_SNAPSHOT"],
      [ev.messagesSnapshot([{ id: 1, role: "user" }] as unknown as Message[]), "MESSAGES_SNAPSHOT"],
      [ev.runStarted("r1", { input: { messages: [null] } }), "RUN_STARTED"],
      [ev.toolCallResult("t1", "tc1", 5 as unknown as string), "TOOL_CALL_RESULT"],
      [ev.activitySnapshot("a", "t", null as unknown as Record<string, unknown>), "ACTIVITY_SNAPSHOT"],
      [{ type: "ACTIVITY_DELTA", messageId: "a", activityType: "t", patch: {} }, "ACTIVITY_DELTA"],
    ];
    for (const [event, eventType] of cases) {
      const r = runStage(createHistoryStage(), [ev.runStarted(), event as AguiEvent]);
      expect(r.error).toBeInstanceOf(ReasoningProtocolError);
      expect(r.error).toMatchObject({ code: "MALFORMED_EVENT", rule: "R-PROC-4", eventIndex: 1, eventType });
    }
  });

  it("R-PROC-4: bad seed options are rejected when the stage is created", () => {
    expect(() => createHistoryStage({ initialMessages: "x" as unknown as Message[] })).toThrow(TypeError);
    expect(() => createHistoryStage({ initialMessages: [{ role: "user" }] as unknown as Message[] })).toThrow(
      /initialMessages\[0\]/,
    );
    expect(() => createHistoryStage({ initialHistory: { messages: [] } as unknown as ReasoningHistory })).toThrow(
      TypeError,
    );
    expect(() =>
      createHistoryStage({
        initialHistory: { messages: [], incomplete: [], issuers: [null] } as unknown as ReasoningHistory,
      }),
    ).toThrow(/initialHistory\.issuers\[0\]/);
    expect(() => createHistoryStage({ producer: 42 as unknown as string })).toThrow(TypeError);
  });

  it('R-EVT-9: ids are opaque map keys — "__proto__" and "constructor" work like any id', () => {
    const r = run([
      ev.runStarted(),
      ...reasoning("__proto__", "a"),
      ...toolCall("constructor", "hasOwnProperty"),
      ev.encryptedValue("message", "__proto__", "v1"),
      ev.encryptedValue("tool-call", "constructor", "v2"),
      ev.encryptedValue("message", "toString", "v3"),
    ]);
    expect(r.codes).toEqual(["UNKNOWN_ENTITY"]);
    expect(r.history.messages).toEqual([
      R("__proto__", "a", { encryptedValue: "v1" }),
      { id: "hasOwnProperty", role: "assistant", toolCalls: [call("constructor", "{}", { encryptedValue: "v2" })] },
    ]);
  });

  it("R-EVT-8: a TOOL_CALL_RESULT re-using a held tool message id replaces it with a lossy warning", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "a1"),
      ev.toolCallResult("t1", "tc1", "first"),
      ev.encryptedValue("message", "t1", "v"),
      ev.toolCallResult("t1", "tc1", "second"),
    ]);
    expect(r.codes).toEqual(["DUPLICATE_MESSAGE_ID"]);
    expect(r.history).toEqual(
      hist([
        { id: "a1", role: "assistant", toolCalls: [call("tc1")] },
        { id: "t1", role: "tool", toolCallId: "tc1", content: "second" },
      ]),
    );
  });
});

describe("D-SNAPSHOT-ROLE: a snapshot restating an open message with a role of the other family", () => {
  it("D-SNAPSHOT-ROLE: an open text message restated as reasoning keeps the snapshot's message; later fragments are not applied (lossy TARGET_REPLACED); its END closes it", () => {
    const r = run([
      ev.runStarted(),
      ev.textStart("t"),
      ev.textContent("t", "a"),
      snapshot([R("t", "c")]),
      ev.textContent("t", "more"),
      ev.textContent("t", ""),
      ev.textEnd("t"),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["TARGET_REPLACED"]);
    expectWarning(r.warnings[0], { rule: "D-SNAPSHOT-ROLE", eventIndex: 4, ids: ["t"], lossy: true });
    expect(r.warnings[0]!.message).toContain("4 bytes");
    expect(r.history).toEqual(hist([R("t", "c")]));
  });

  it("D-SNAPSHOT-ROLE: an open reasoning message restated as assistant: content and END metadata are not applied (TARGET_REPLACED); the END closes it", () => {
    const r = run([
      ev.runStarted(),
      ev.reasoningMessageStart("r"),
      snapshot([A("r", "answer")]),
      ev.reasoningMessageContent("r", "x"),
      ev.reasoningMessageEnd("r", { metadata: { k: 1 } }),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["TARGET_REPLACED", "TARGET_REPLACED"]);
    expect(r.warnings.map((w) => w.eventIndex)).toEqual([3, 4]);
    expect(r.history).toEqual(hist([A("r", "answer")]));
  });

  it("D-SNAPSHOT-ROLE: an open text message restated as a tool message is not appended to either", () => {
    const tool = { id: "t", role: "tool", toolCallId: "tc1", content: "out" };
    const r = run([
      ev.runStarted(),
      ev.textStart("t"),
      snapshot([tool]),
      ev.textContent("t", "x"),
      ev.textEnd("t"),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["TARGET_REPLACED"]);
    expect(r.history).toEqual(hist([tool]));
  });

  it("D-SNAPSHOT-ROLE: the restated message is the snapshot's, complete: no longer listed as incomplete; run alone, the stage still rejects a fragment of the other family", () => {
    const { stage, state } = stepAll([
      ev.runStarted(),
      ev.textStart("t"),
      ev.textStart("u"),
      snapshot([R("t", "c"), A("u", "")]),
    ]);
    expect(state.history.incomplete).toEqual([open("u")]);
    expect(() => stage.step(state, ev.reasoningMessageContent("u", "x"), { index: 4 })).toThrow(
      expect.objectContaining({ code: "ORPHAN_CONTENT" }),
    );
  });
});

describe("D-TOOL-RESULT-ID: a tool result whose messageId names a message of another role", () => {
  it("D-TOOL-RESULT-ID: LangGraph's shape (the call's parent id reused by its result) completes with a non-lossy DUPLICATE_MESSAGE_ID naming both roles", () => {
    const r = run([ev.runStarted(), ...toolCall("tc1", "X"), ev.toolCallResult("X", "tc1", "42"), ev.runFinished()]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["DUPLICATE_MESSAGE_ID"]);
    expectWarning(r.warnings[0], { rule: "D-TOOL-RESULT-ID", eventIndex: 4, ids: ["X"] });
    expect(r.warnings[0]!.lossy).toBeUndefined();
    expect(r.warnings[0]!.message).toMatch(/assistant.*tool/);
    expect(r.history.messages).toEqual([
      { id: "X", role: "assistant", toolCalls: [call("tc1")] },
      result("X", "tc1", "42"),
    ]);
  });

  it("D-TOOL-RESULT-ID: the C++ mock's shape (a parent-less call, its result under the call id) completes without a warning (the id was minted by the package)", () => {
    const r = run([
      ev.runStarted(),
      ev.toolCallStart("tc1", "search"),
      ev.toolCallEnd("tc1"),
      ev.toolCallResult("tc1", "tc1", "ok"),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual([]);
    expect(r.history.messages).toEqual([
      {
        id: "tc1",
        role: "assistant",
        toolCalls: [{ id: "tc1", type: "function", function: { name: "search", arguments: "" } }],
      },
      result("tc1", "tc1", "ok"),
    ]);
  });

  it("D-TOOL-RESULT-ID: a result reusing a text message id is its own tool message, placed after the call's holder; lookups by id keep the earlier message", () => {
    const r = run([
      ev.runStarted(),
      ...text("a1", "x"),
      ...toolCall("tc1", "h1"),
      ev.toolCallResult("a1", "tc1", "r"),
      ev.encryptedValue("message", "a1", "v"),
      ev.textStart("a1"),
      ev.textContent("a1", "y"),
      ev.textEnd("a1"),
      ev.toolCallResult("a1", "tc1", "r2"),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["DUPLICATE_MESSAGE_ID", "DUPLICATE_MESSAGE_ID"]);
    expect(r.warnings.map((w) => w.rule)).toEqual(["D-TOOL-RESULT-ID", "R-EVT-8"]);
    expect(r.history.messages).toEqual([
      A("a1", "xy", { encryptedValue: "v" }),
      { id: "h1", role: "assistant", toolCalls: [call("tc1")] },
      result("a1", "tc1", "r2"),
    ]);
    expect(r.history.issuers).toEqual([issued("message", "a1")]);
    // Back in run input as a tool message of its own.
    expect(toRunInputMessages(r.history, { producer: P }).map((m) => m.role)).toEqual([
      "assistant",
      "assistant",
      "tool",
    ]);
  });

  it("D-TOOL-RESULT-ID: a result inserted before later messages keeps every lookup right", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "X"),
      ...text("later", "z"),
      ev.toolCallResult("X", "tc1", "42"),
      ev.textStart("later"),
      ev.textContent("later", "!"),
      ev.textEnd("later"),
      ev.encryptedValue("message", "X", "v"),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.history.messages).toEqual([
      { id: "X", role: "assistant", toolCalls: [call("tc1")], encryptedValue: "v" },
      result("X", "tc1", "42"),
      A("later", "z!"),
    ]);
  });

  it("D-TOOL-RESULT-ID: a snapshot reconciles two messages sharing an id by id and role", () => {
    const held = [ev.runStarted(), ...toolCall("tc1", "X"), ev.toolCallResult("X", "tc1", "42")];
    const both = run([
      ...held,
      snapshot([{ id: "X", role: "assistant", toolCalls: [call("tc1", '{"q":1}')] }, result("X", "tc1", "43")]),
    ]);
    expect(both.history.messages).toEqual([
      { id: "X", role: "assistant", toolCalls: [call("tc1", '{"q":1}')] },
      result("X", "tc1", "43"),
    ]);
    const toolOnly = run([...held, snapshot([result("X", "tc1", "43")])]);
    expect(toolOnly.history.messages).toEqual([result("X", "tc1", "43")]);
    // After the snapshot, a new result under X replaces the held tool message (R-EVT-8), not the assistant.
    const again = run([
      ...held,
      snapshot([{ id: "X", role: "assistant", toolCalls: [call("tc1")] }, result("X", "tc1", "43")]),
      ev.toolCallResult("X", "tc1", "44"),
    ]);
    expect(again.history.messages).toEqual([
      { id: "X", role: "assistant", toolCalls: [call("tc1")] },
      result("X", "tc1", "44"),
    ]);
  });
});

describe("D-TOOL-RESULT-ID the other way round: the tool message holds the id first", () => {
  it("D-TOOL-RESULT-ID: a TEXT_MESSAGE_START reusing a tool message's id is a message of its own (non-lossy DUPLICATE_MESSAGE_ID); lookups by id resolve to it", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "h1"),
      ev.toolCallResult("Y", "tc1", "42"),
      ...text("Y", "done"),
      ev.encryptedValue("message", "Y", "v"),
      ev.toolCallResult("Y", "tc1", "43"),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["DUPLICATE_MESSAGE_ID", "DUPLICATE_MESSAGE_ID"]);
    expectWarning(r.warnings[0], { rule: "D-TOOL-RESULT-ID", eventIndex: 5, ids: ["Y"] });
    expect(r.warnings[0]!.lossy).toBeUndefined();
    expect(r.warnings[1]!.rule).toBe("R-EVT-8");
    expect(r.history.messages).toEqual([
      { id: "h1", role: "assistant", toolCalls: [call("tc1")] },
      result("Y", "tc1", "43"),
      A("Y", "done", { encryptedValue: "v" }),
    ]);
  });

  it("D-TOOL-RESULT-ID: a parent-less TOOL_CALL_START whose id a tool message holds gets an assistant holder of its own", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "h1"),
      ev.toolCallResult("tc2", "tc1", "42"),
      ev.toolCallStart("tc2"),
      ev.toolCallEnd("tc2"),
      ev.runFinished(),
    ]);
    expect(r.error).toBeUndefined();
    expect(r.codes).toEqual(["DUPLICATE_MESSAGE_ID"]);
    expectWarning(r.warnings[0], { rule: "D-TOOL-RESULT-ID", eventIndex: 5, ids: ["tc2"] });
    expect(r.history.messages).toEqual([
      { id: "h1", role: "assistant", toolCalls: [call("tc1")] },
      result("tc2", "tc1", "42"),
      {
        id: "tc2",
        role: "assistant",
        toolCalls: [{ id: "tc2", type: "function", function: { name: "search", arguments: "" } }],
      },
    ]);
  });

  it("D-ROLE-CONFLICT: a REASONING_MESSAGE_START reusing a tool message's id still fails (reasoning vs non-reasoning)", () => {
    const r = run([
      ev.runStarted(),
      ...toolCall("tc1", "h1"),
      ev.toolCallResult("Y", "tc1", "42"),
      ev.reasoningMessageStart("Y"),
    ]);
    expect(r.error).toEqual(
      expect.objectContaining({ code: "ID_ROLE_CONFLICT", rule: "D-ROLE-CONFLICT", eventIndex: 5 }),
    );
  });
});

describe("structural sharing", () => {
  it("R-STATE-4: unchanged messages keep their identity; an empty delta without metadata returns the same state", () => {
    const { stage, state } = stepAll([
      ev.runStarted(),
      ...text("a1", "x"),
      ...text("a2", "y"),
      ev.textStart("a3"),
      ev.textContent("a3", "z"),
    ]);
    const before = state.history;
    const next = stage.step(state, ev.textContent("a3", "!"), { index: 9 }).state;
    expect(next.history.messages[0]).toBe(before.messages[0]);
    expect(next.history.messages[1]).toBe(before.messages[1]);
    expect(next.history.messages[2]).toEqual(A("a3", "z!"));
    expect(next.history.incomplete).toBe(before.incomplete);
    expect(stage.step(next, ev.textContent("a3", ""), { index: 10 }).state).toBe(next);
    // Older histories are never changed by later steps.
    expect(before.messages).toHaveLength(3);
    expect(before.messages[2]).toEqual(A("a3", "z"));
  });

  it("R-STATE-8: deltas on a long conversation never rebuild the message array when nobody reads the history", async () => {
    const { PersistentList } = await import("../src/history/persistent-list");
    const stage = createHistoryStage({
      producer: P,
      initialMessages: Array.from({ length: 3000 }, (_, i) => U(`u${i}`, "x") as Message),
    });
    let state = stage.init();
    let index = 0;
    state = stage.step(state, ev.runStarted(), { index: index++ }).state;
    state = stage.step(state, ev.reasoningMessageStart("m1"), { index: index++ }).state;
    const toArray = jest.spyOn(PersistentList.prototype, "toArray");
    for (let i = 0; i < 2000; i++)
      state = stage.step(state, ev.reasoningMessageContent("m1", "."), { index: index++ }).state;
    expect(toArray).not.toHaveBeenCalled();
    toArray.mockRestore();
    expect(state.history.messages).toHaveLength(3001);
    expect(state.history.messages[3000]).toEqual(R("m1", ".".repeat(2000)));
  });
});
