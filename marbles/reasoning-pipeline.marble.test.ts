import { from, Observable, of } from "rxjs";
import type { Message } from "@ag-ui/core";
import { reasoningPipeline, toRunInputMessages, ReasoningProtocolError, type ReasoningHistory } from "../src";
import { ev, sequentialIds } from "../src/testing/builders";
import { runPipeline } from "../src/testing/run-pipeline";
import { collectWarnings, createTestScheduler } from "../src/testing/marbles";

const PRODUCER = "https://agent.example/run";
const empty: ReasoningHistory = { messages: [], incomplete: [], issuers: [], durations: [] };
// Durations depend on the clock (here the virtual frame); the D-DURATION tests pin them.
const anyDurations = expect.any(Array) as unknown as ReasoningHistory["durations"];
const quiet = () => ({ onWarning: () => {}, idFactory: sequentialIds(), producer: PRODUCER });

describe("reasoningPipeline (facade)", () => {
  it("subscribes to the source once however many of events$, history$ and warnings$ are subscribed", () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("a-----b-----c-----|", {
        a: ev.runStarted(),
        b: ev.reasoningChunk("m1", "Let me"),
        c: ev.runFinished(),
      });
      const p = reasoningPipeline(source, quiet());
      // Two subscribers on each view: still exactly one subscription of the source.
      expectObservable(p.history$).toBe("a-----b-----c-----|", {
        a: empty,
        b: {
          messages: [{ id: "m1", role: "reasoning", content: "Let me" }],
          incomplete: [{ kind: "message", id: "m1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
        c: {
          messages: [{ id: "m1", role: "reasoning", content: "Let me" }],
          incomplete: [],
          issuers: [],
          durations: anyDurations,
        },
      });
      expectObservable(p.history$.pipe()).toBe("a-----b-----c-----|", {
        a: empty,
        b: {
          messages: [{ id: "m1", role: "reasoning", content: "Let me" }],
          incomplete: [{ kind: "message", id: "m1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
        c: {
          messages: [{ id: "m1", role: "reasoning", content: "Let me" }],
          incomplete: [],
          issuers: [],
          durations: anyDurations,
        },
      });
      expectObservable(p.warnings$).toBe("------------------|");
      expectObservable(p.warnings$).toBe("------------------|");
      expectObservable(p.events$).toBe("a-----(bc)--(de)--|", {
        a: ev.runStarted(),
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "Let me" },
        d: { type: "REASONING_MESSAGE_END", messageId: "m1" },
        e: ev.runFinished(),
      });
      expectObservable(p.events$).toBe("a-----(bc)--(de)--|", {
        a: ev.runStarted(),
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "Let me" },
        d: { type: "REASONING_MESSAGE_END", messageId: "m1" },
        e: ev.runFinished(),
      });
      expectSubscriptions(source.subscriptions).toBe("^-----------------!");
    });
  });

  it("a cold source counting its subscriptions is subscribed once", () => {
    let subscriptions = 0;
    const source = new Observable<unknown>((s) => {
      subscriptions++;
      for (const e of [ev.runStarted(), ev.runFinished()]) s.next(e);
      s.complete();
    });
    const p = reasoningPipeline(source, quiet());
    const seen: string[] = [];
    p.history$.subscribe(() => seen.push("h"));
    p.warnings$.subscribe(() => seen.push("w"));
    p.events$.subscribe((e) => seen.push(e.type));
    p.events$.subscribe(() => {});
    p.history$.subscribe(() => {});
    expect(subscriptions).toBe(1);
    expect(seen).toEqual(["h", "RUN_STARTED", "RUN_FINISHED"]);
  });

  it("events$, history$ and warnings$ in one diagram: an unknown event is dropped with a warning (R-PROC-1)", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b-----c-----d-----|", {
        a: ev.runStarted(),
        b: { type: "REASONING_SUMMARY", messageId: "x" },
        c: ev.textChunk("a1", "Hi"),
        d: ev.runFinished(),
      });
      const p = reasoningPipeline(source, quiet());
      const text = { id: "a1", role: "assistant", content: "Hi" };
      expectObservable(p.history$).toBe("a-----------c-----d-----|", {
        a: empty,
        c: {
          messages: [text],
          incomplete: [{ kind: "message", id: "a1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
        d: { messages: [text], incomplete: [], issuers: [], durations: anyDurations },
      });
      expectObservable(p.warnings$).toBe("------w-----------------|", {
        w: expect.objectContaining({ code: "UNKNOWN_EVENT_TYPE", eventType: "REASONING_SUMMARY", eventIndex: 1 }),
      });
      expectObservable(p.events$).toBe("a-----------(bc)--(de)--|", {
        a: ev.runStarted(),
        b: { type: "TEXT_MESSAGE_START", messageId: "a1", role: "assistant" },
        c: { type: "TEXT_MESSAGE_CONTENT", messageId: "a1", delta: "Hi" },
        d: { type: "TEXT_MESSAGE_END", messageId: "a1" },
        e: ev.runFinished(),
      });
    });
  });

  it("unsubscribing every view tears the source down", () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("a-----b-----c-----d-----e-----f-----|", {
        a: ev.runStarted(),
        b: ev.reasoningChunk("m1", "x"),
        c: ev.reasoningChunk(undefined, "y"),
        d: ev.reasoningChunk(undefined, "z"),
        e: ev.reasoningChunk(undefined, "w"),
        f: ev.runFinished(),
      });
      const p = reasoningPipeline(source, quiet());
      expectObservable(p.history$, "^-------!").toBe("a-----b-", {
        a: empty,
        b: {
          messages: [{ id: "m1", role: "reasoning", content: "x" }],
          incomplete: [{ kind: "message", id: "m1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
      });
      expectObservable(p.events$, "^-------------!").toBe("a-----(bc)--d-", {
        a: ev.runStarted(),
        b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
        c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "x" },
        d: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "y" },
      });
      expectSubscriptions(source.subscriptions).toBe("^-------------!");
    });
  });

  it("R-RUN-13: a violation errors events$; history$ keeps what was delivered and completes", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b-----c-----d-----|", {
        a: ev.runStarted(),
        b: ev.reasoningMessageStart("m1"),
        c: ev.reasoningMessageContent("m1", "kept"),
        d: ev.reasoningMessageContent("m2", "orphan"),
      });
      const p = reasoningPipeline(source, quiet());
      const kept = { id: "m1", role: "reasoning", content: "kept" };
      expectObservable(p.history$).toBe("a-----b-----c-----|", {
        a: empty,
        b: {
          messages: [{ ...kept, content: "" }],
          incomplete: [{ kind: "message", id: "m1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
        c: {
          messages: [kept],
          incomplete: [{ kind: "message", id: "m1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
      });
      expectObservable(p.warnings$).toBe("------------------|");
      expectObservable(p.events$).toBe(
        "a-----b-----c-----#",
        { a: ev.runStarted(), b: ev.reasoningMessageStart("m1"), c: ev.reasoningMessageContent("m1", "kept") },
        expect.objectContaining({ code: "ORPHAN_CONTENT", eventIndex: 3, ids: ["m2"] }),
      );
    });
  });

  it("D-TRUNC: a source that ends inside a run errors with RUN_TRUNCATED; history lists the message as truncated", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold("a-----b-----|", { a: ev.runStarted(), b: ev.reasoningChunk("m1", "half") });
      const p = reasoningPipeline(source, quiet());
      const half = { id: "m1", role: "reasoning", content: "half" };
      expectObservable(p.history$).toBe("a-----b-----(c|)", {
        a: empty,
        b: {
          messages: [half],
          incomplete: [{ kind: "message", id: "m1", reason: "open" }],
          issuers: [],
          durations: anyDurations,
        },
        c: {
          messages: [half],
          incomplete: [{ kind: "message", id: "m1", reason: "truncated" }],
          issuers: [],
          durations: anyDurations,
        },
      });
      expectObservable(p.events$).toBe(
        "a-----(bc)--#",
        {
          a: ev.runStarted(),
          b: { type: "REASONING_MESSAGE_START", messageId: "m1", role: "reasoning" },
          c: { type: "REASONING_MESSAGE_CONTENT", messageId: "m1", delta: "half" },
        },
        expect.objectContaining({ code: "RUN_TRUNCATED", rule: "D-TRUNC", eventIndex: 2 }),
      );
    });
  });

  it("a synchronous source: views subscribed before events$ see every emission; connect() starts it without events$", () => {
    const events = [ev.runStarted(), ev.reasoningMessageStart("m1"), ev.reasoningMessageEnd("m1"), ev.runFinished()];
    const p = reasoningPipeline(from(events), quiet());
    const histories: ReasoningHistory[] = [];
    p.history$.subscribe((h) => histories.push(h));
    const types: string[] = [];
    p.events$.subscribe((e) => types.push(e.type));
    expect(types).toEqual(events.map((e) => e.type));
    expect(histories.map((h) => h.incomplete.length)).toEqual([0, 1, 0]);

    const q = reasoningPipeline(from(events), quiet());
    const last: ReasoningHistory[] = [];
    q.connect();
    q.history$.subscribe((h) => last.push(h)); // late: replayed latest state
    expect(last).toEqual([
      {
        messages: [{ id: "m1", role: "reasoning", content: "" }],
        incomplete: [],
        issuers: [],
        durations: anyDurations,
      },
    ]);
    expect(q.history).toBe(last[0]);
  });

  it("D-ISSUER, R-REASON-17/26: a two-run conversation returns each encrypted value to its issuer only", () => {
    // Turn 1: a reasoning message and a tool call each get an encrypted value.
    const turn1 = [
      ev.runStarted("r1"),
      ev.reasoningStart("s1"),
      ev.reasoningChunk("m1", "Thinking"),
      ev.reasoningEnd("s1"),
      ev.encryptedValue("message", "m1", "opaque+/=blob\u00e9"),
      ev.toolCallStart("tc1", "search", { parentMessageId: "a1" }),
      ev.toolCallArgs("tc1", "{}"),
      ev.toolCallEnd("tc1"),
      ev.encryptedValue("tool-call", "tc1", ""),
      ev.runFinished("r1"),
    ];
    const p1 = reasoningPipeline(of(...turn1), quiet());
    p1.connect();
    const h1 = p1.history;
    const toSame = toRunInputMessages(h1, { producer: PRODUCER, onWarning: () => {} });
    expect(toSame).toEqual([
      { id: "m1", role: "reasoning", content: "Thinking", encryptedValue: "opaque+/=blob\u00e9" },
      {
        id: "a1",
        role: "assistant",
        toolCalls: [{ id: "tc1", type: "function", function: { name: "search", arguments: "{}" }, encryptedValue: "" }],
      },
    ]);
    const other = collectWarnings();
    const toOther = toRunInputMessages(h1, { producer: "https://other.example", onWarning: other.onWarning });
    expect(JSON.stringify(toOther)).not.toContain("encryptedValue");
    expect(other.codes()).toContain("VALUE_WITHHELD");
    expect(JSON.stringify(other.warnings)).not.toContain("opaque");

    // Turn 2 starts from turn 1's history; the producer echoes its input; the values survive.
    const turn2 = [
      ev.runStarted("r2", { input: { threadId: "t1", runId: "r2", messages: toSame } }),
      ev.textStart("a2"),
      ev.textContent("a2", "Done"),
      ev.textEnd("a2"),
      ev.runFinished("r2"),
    ];
    const p2 = reasoningPipeline(of(...turn2), { ...quiet(), initialHistory: h1 });
    p2.connect();
    const again = toRunInputMessages(p2.history, { producer: PRODUCER, onWarning: () => {} });
    expect(again.slice(0, 2)).toEqual(toSame);
    expect(again[2]).toEqual({ id: "a2", role: "assistant", content: "Done" });
  });

  it("errors are ReasoningProtocolError instances carrying the source index", () => {
    const p = reasoningPipeline(of(ev.reasoningStart("s1")), quiet());
    let error: unknown;
    p.events$.subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeInstanceOf(ReasoningProtocolError);
    expect(error).toMatchObject({ code: "EVENT_OUTSIDE_RUN", eventIndex: 0, rule: "R-RUN-1" });
  });

  it("initialMessages seed the history", () => {
    const initialMessages: Message[] = [{ id: "u1", role: "user", content: "Hello" }];
    const p = reasoningPipeline(of(ev.runStarted(), ev.runFinished()), { ...quiet(), initialMessages });
    p.connect();
    expect(p.history.messages).toEqual(initialMessages);
  });
});

describe("D-TOOL-RESULT-ID: real producers' tool results", () => {
  it("D-TOOL-RESULT-ID: LangGraph's unstreamed call (the result reuses the call's parent id) completes; the result goes back as its own tool message", () => {
    const run = runPipeline([
      ev.runStarted(),
      ev.toolCallStart("call-1", "search", { parentMessageId: "X" }),
      ev.toolCallArgs("call-1", '{"q":"x"}'),
      ev.toolCallEnd("call-1"),
      ev.toolCallResult("X", "call-1", "42"),
      ev.runFinished(),
    ]);
    expect(run.error).toBeUndefined();
    expect(run.warnings.map((w) => [w.code, w.rule, w.ids, w.lossy ?? false])).toEqual([
      ["DUPLICATE_MESSAGE_ID", "D-TOOL-RESULT-ID", ["X"], false],
    ]);
    expect(toRunInputMessages(run.history, { producer: "https://agent.test/run" }).map((m) => [m.id, m.role])).toEqual([
      ["X", "assistant"],
      ["X", "tool"],
    ]);
  });

  it("D-TOOL-RESULT-ID: the C++ mock's parent-less call answered under the call id completes without a warning", () => {
    const run = runPipeline([
      ev.runStarted(),
      ev.toolCallStart("tc1", "get_weather"),
      ev.toolCallArgs("tc1", "{}"),
      ev.toolCallEnd("tc1"),
      ev.toolCallResult("tc1", "tc1", "sunny"),
      ev.runFinished(),
    ]);
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    expect(run.history.messages.map((m) => [m.id, m.role])).toEqual([
      ["tc1", "assistant"],
      ["tc1", "tool"],
    ]);
  });
});

describe("D-RUN-ID: a server minting its own run id", () => {
  it("D-RUN-ID: the run completes; warnings$ carries one RUN_ID_MISMATCH with both ids only", () => {
    const run = runPipeline([
      ev.runStarted("client-run"),
      ev.textStart("a1"),
      ev.textContent("a1", "secret answer"),
      ev.textEnd("a1"),
      ev.runFinished("server-run"),
    ]);
    expect(run.error).toBeUndefined();
    expect(run.events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "RUN_FINISHED",
    ]);
    expect(run.warnings.map((w) => [w.code, w.eventIndex, w.ids])).toEqual([
      ["RUN_ID_MISMATCH", 4, ["client-run", "server-run"]],
    ]);
    expect(JSON.stringify(run.warnings)).not.toContain("secret answer");
  });
});

describe("D-SNAPSHOT-ROLE: a snapshot never makes a stream impossible to finish", () => {
  it("D-SNAPSHOT-ROLE: an open text message restated as reasoning: its own END closes it, the run finishes, the history keeps the snapshot's message", () => {
    const restated = ev.messagesSnapshot([{ id: "t", role: "reasoning", content: "c" }]);
    const run = runPipeline([
      ev.runStarted(),
      ev.textStart("t"),
      restated,
      ev.textContent("t", "late"),
      ev.textEnd("t"),
      ev.runFinished(),
    ]);
    expect(run.error).toBeUndefined();
    expect(run.warnings.map((w) => [w.code, w.rule, w.eventIndex, w.lossy])).toEqual([
      ["TARGET_REPLACED", "D-SNAPSHOT-ROLE", 3, true],
    ]);
    expect(run.history).toEqual({
      messages: [{ id: "t", role: "reasoning", content: "c" }],
      incomplete: [],
      issuers: [],
      durations: anyDurations,
    });
    // A diagnostic on the way names the text family that holds it open.
    const wrong = runPipeline([ev.runStarted(), ev.textStart("t"), restated, ev.reasoningMessageEnd("t")]);
    expect(wrong.error).toMatchObject({
      code: "ORPHAN_END",
      eventIndex: 3,
      message: expect.stringContaining("open as a text message"),
    });
  });
});

describe("D-NO-ALIAS: the history shares no mutable object with an event", () => {
  /** Every object and array an event nests (not the event itself), each once. */
  function nested(events: readonly unknown[]): object[] {
    const found = new Set<object>();
    const stack: unknown[] = [];
    for (const event of events) for (const value of Object.values(event as object)) stack.push(value);
    while (stack.length > 0) {
      const value = stack.pop();
      if (typeof value !== "object" || value === null || found.has(value)) continue;
      found.add(value);
      stack.push(...Object.values(value));
    }
    return [...found];
  }

  /** Changes every nested object and array in place: strings rewritten, a key added, an element pushed. */
  function mutateAll(objects: readonly object[]): void {
    for (const o of objects) {
      if (Array.isArray(o)) o.push("MUTATED");
      else {
        const record = o as Record<string, unknown>;
        for (const key of Object.keys(record)) if (typeof record[key] === "string") record[key] = "MUTATED";
        record.mutated = ["MUTATED"];
      }
    }
  }

  const meta = (tag: string) => ({ metadata: { tag, list: [tag, { deep: [tag] }] } });
  const part = { type: "text", text: "result part" };
  const held = { id: "u0", role: "user", content: "hello", metadata: { list: ["u0"] } };
  const restated = {
    id: "a0",
    role: "assistant",
    content: "restated",
    toolCalls: [{ id: "tc0", type: "function", function: { name: "f", arguments: "{}" }, metadata: { list: [1] } }],
  };
  const stream = () => [
    ev.runStarted("r1", { input: { threadId: "t1", runId: "r1", messages: [held], tools: [], context: [] } }),
    ev.messagesSnapshot([held, restated] as never),
    ev.textStart("a1", "assistant", meta("text-start")),
    ev.textContent("a1", "answer", meta("text-content")),
    ev.textEnd("a1", meta("text-end")),
    ev.reasoningMessageStart("m1", meta("reasoning-start")),
    ev.reasoningMessageContent("m1", "thought", meta("reasoning-content")),
    ev.reasoningMessageEnd("m1", meta("reasoning-end")),
    ev.toolCallStart("tc1", "search", { parentMessageId: "a1", ...meta("call-start") }),
    ev.toolCallArgs("tc1", "{}", meta("call-args")),
    ev.toolCallEnd("tc1", meta("call-end")),
    ev.toolCallResult("t1", "tc1", "", { content: [part], ...meta("result") }),
    ev.reasoningChunk("m2", "chunked", meta("chunk")),
    ev.activitySnapshot("act1", "plan", { steps: [{ title: "one", tags: ["a"] }] }, meta("activity")),
    {
      type: "ACTIVITY_DELTA",
      messageId: "act1",
      activityType: "plan",
      patch: [{ op: "add", path: "/steps/-", value: { title: "two", tags: ["b"] } }],
      ...meta("delta"),
    },
    ev.runFinished("r1"),
  ];

  it("D-NO-ALIAS: mutating every source and delivered event object afterwards changes no published history", () => {
    const source = stream();
    const run = runPipeline(source);
    expect(run.error).toBeUndefined();
    expect(run.warnings).toEqual([]);
    // What was published, deep-copied before anything is mutated.
    const before = structuredClone(run.histories.map((h) => ({ ...h, messages: [...h.messages] })));
    const last = run.history.messages as unknown as Record<string, unknown>[];
    expect(last.map((m) => m.id)).toEqual(["u0", "a0", "a1", "t1", "m1", "m2", "act1"]);
    mutateAll(nested([...source, ...run.events]));
    expect(run.histories.map((h) => ({ ...h, messages: [...h.messages] }))).toEqual(before);
  });

  it("D-NO-ALIAS: the history holds none of the event objects (metadata, nested arrays, snapshot messages, activity content, tool-call objects, parts)", () => {
    const source = stream();
    const run = runPipeline(source);
    const ours = new Set(nested(run.histories.map((h) => ({ messages: h.messages }))));
    for (const object of nested([...source, ...run.events])) expect(ours.has(object)).toBe(false);
  });
});
